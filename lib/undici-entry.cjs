// The two names of undici the project uses, Agent and request, as the package's own entry makes them: scripts/build.mjs bundles this file into dist/lib/undici-bundle.cjs, which lib/undici.ts loads.
//
// Why not the package's entry: it also loads fetch, WebSocket, EventSource, the caches, the cookies and the mocks, and through them
// Node's own undici (a global they read): about 30 ms of CPU more in every process that loads it (each `ces`, each Playwright
// runner and worker), for names the project never uses. The modules are the package's, at its installed version.
'use strict';
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const Agent = require('undici/lib/dispatcher/agent');
const api = require('undici/lib/api');
const util = require('undici/lib/core/util');
const { InvalidArgumentError } = require('undici/lib/core/errors');
const { getGlobalDispatcher } = require('undici/lib/global');

// As the package's entry does: every dispatcher (an Agent, its pools and clients) has the API's methods.
Object.assign(Dispatcher.prototype, api);

/**
 * undici's `request(url, opts)`: its entry's makeDispatcher (undici 7.30.2, index.js; MIT licence, Copyright (c) Matteo Collina
 * and Undici contributors), unchanged: the URL and options checked and split the same way, the global dispatcher when none is
 * given. test/lib.test.ts checks it against the package's on the same calls.
 */
function makeDispatcher (fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts
      opts = null
    }

    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new InvalidArgumentError('invalid url')
    }

    if (opts != null && typeof opts !== 'object') {
      throw new InvalidArgumentError('invalid opts')
    }

    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') {
        throw new InvalidArgumentError('invalid opts.path')
      }

      let path = opts.path
      if (!opts.path.startsWith('/')) {
        path = `/${path}`
      }

      url = new URL(util.parseOrigin(url).origin + path)
    } else {
      if (!opts) {
        opts = typeof url === 'object' ? url : {}
      }

      url = util.parseURL(url)
    }

    const { agent, dispatcher = getGlobalDispatcher() } = opts

    if (agent) {
      throw new InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?')
    }

    return fn.call(dispatcher, {
      ...opts,
      origin: url.origin,
      path: url.search ? `${url.pathname}${url.search}` : url.pathname,
      method: opts.method || (opts.body ? 'PUT' : 'GET')
    }, handler)
  }
}

module.exports = { Agent, request: makeDispatcher(api.request) };
