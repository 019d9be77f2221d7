// Area "console": the visitor chat window and the live inspector (static pages under /console/), their read-only JSON views and live feed (SSE).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { LIMITS } from '../../lib/limits.js';
import type { Exchange } from '../bots/connector-client.js';
import { registerSimConversations } from '../sim/conversations.js';
import { botsView, chatWebsites, conversationDetail, conversationList, redactJson, webhooksFingerprint, webhooksView } from './data.js';
import { conversationTranscriptFile } from './transcript.js';

const PUBLIC = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');
/** How often the live feed looks at state without an event emitter (webhook log, polled availability). */
export const FEED_CHECK_MS = 500;
/** A comment line keeps idle SSE connections open through proxies. */
const KEEPALIVE_MS = 15_000;
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

interface Listener { conversation?: string; send(event: string, data: unknown): void }

const area: FastifyPluginAsync = async (app) => {
  const ces = app.ces;
  const listeners = new Set<Listener>();
  const streams = new Set<FastifyReply>();
  const broadcast = (event: string, data: unknown, conversation?: string) => {
    for (const l of listeners) if (!l.conversation || !conversation || l.conversation === conversation) l.send(event, data);
  };
  const uuidOf = (id: number | null) => (id === null ? undefined : (ces.db.prepare('SELECT uuid FROM conversations WHERE id = ?').get(id) as { uuid: string } | undefined)?.uuid);

  // Conversation changes come from the bot runtime's emitter; exchanges from the connector client's feed.
  const onChanged = (id: number) => {
    const uuid = uuidOf(id);
    if (uuid) broadcast('conversation', { conversationId: uuid }, uuid);
  };
  const onExchange = (ex: Exchange) => {
    if (ex.conversationId === null) return; // availability polls: summarised by the periodic bots check below
    const uuid = uuidOf(ex.conversationId);
    if (uuid) broadcast('exchange', { conversationId: uuid, endpoint: ex.endpoint }, uuid);
  };
  let attached = false;
  const attach = () => {
    if (attached) return;
    ces.bots.runtime.events.on('changed', onChanged);
    ces.bots.exchanges.events.on('exchange', onExchange);
    attached = true;
  };
  let lastHooks = '';
  let lastBots = '';
  const check = setInterval(() => {
    if (!listeners.size) return;
    try {
      const hooks = webhooksFingerprint(ces);
      if (hooks !== lastHooks) { lastHooks = hooks; broadcast('webhooks', {}); }
      const bots = JSON.stringify(botsView(ces).map((b) => [b.operatorId, b.status, b.available, b.polls]));
      if (bots !== lastBots) { lastBots = bots; broadcast('bots', {}); }
    } catch { /* the store is closing */ }
  }, FEED_CHECK_MS);
  check.unref();

  // Open SSE streams would keep the server from closing: end them first.
  app.addHook('preClose', async () => {
    clearInterval(check);
    for (const r of streams) r.raw.end();
    streams.clear();
    listeners.clear();
    ces.bots.runtime.events.off('changed', onChanged);
    ces.bots.exchanges.events.off('exchange', onExchange);
  });

  // A local developer tool: it shows every client's data, so it answers loopback callers only (`ces serve --host` on another address).
  // A hook of this encapsulated scope: it runs on every console route that matched, whatever the spelling of its path.
  app.addHook('onRequest', async (req, reply) => {
    const from = req.socket.remoteAddress ?? '';
    if (!LOOPBACK.test(from)) return reply.code(403).send({ error: 'forbidden', message: 'the console answers loopback callers only' });
  });

  // The chat page drives its conversation with the simulation API's conversation routes, served here under the loopback guard (the page holds no sim token).
  await app.register(async (chat) => registerSimConversations(chat), { prefix: '/console/api/chat' });

  await app.register(fastifyStatic, { root: PUBLIC, prefix: '/console/assets/', decorateReply: true, index: false, cacheControl: false });

  const page = (file: string) => async (_req: unknown, reply: FastifyReply) => reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').sendFile(file);
  app.get('/console', async (_req, reply) => reply.redirect('/console/chat'));
  app.get('/console/', async (_req, reply) => reply.redirect('/console/chat'));
  app.get('/console/chat', page('chat.html'));
  app.get('/console/inspector', page('inspector.html'));

  const json = (reply: FastifyReply, value: unknown) => reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(redactJson(ces, value));

  // What the pages need to start: websites with a bot, limits named by the spec, behaviour flags (deviations that break the pages on purpose).
  app.get('/console/api/config', async (_req, reply) => json(reply, {
    websites: chatWebsites(ces),
    limits: { imageWidth: ces.policy.console.imageSize.width, imageHeight: ces.policy.console.imageSize.height, botTextMax: LIMITS.botTextMax },
    strips: ces.policy.console.bundleStrips,
    flags: ces.policy.console.pageFlags,
  }));
  app.get('/console/api/conversations', async (_req, reply) => json(reply, { conversations: conversationList(ces) }));
  app.get<{ Params: { id: string } }>('/console/api/conversations/:id', async (req, reply) => {
    const d = conversationDetail(ces, req.params.id);
    if (!d) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    return json(reply, d);
  });
  // "Save transcript" on the chat page: the conversation in the transcript format (docs/transcripts.md), as a download.
  app.get<{ Params: { id: string } }>('/console/api/conversations/:id/transcript', async (req, reply) => {
    const f = conversationTranscriptFile(ces, req.params.id);
    if (!f) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    return reply.header('cache-control', 'no-store').header('content-disposition', `attachment; filename="${f.fileName}"`).type('application/json; charset=utf-8').send(f.text);
  });
  app.get('/console/api/bots', async (_req, reply) => json(reply, { bots: botsView(ces) }));
  app.get('/console/api/webhooks', async (_req, reply) => json(reply, { deliveries: webhooksView(ces) }));

  // Live feed: `conversation`, `exchange` (filtered by ?conversation=<uuid> when given), `webhooks`, `bots`; the page then reads the views above.
  app.get<{ Querystring: { conversation?: string } }>('/console/api/events', (req, reply) => {
    attach();
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write('retry: 1000\n\n');
    const l: Listener = {
      conversation: typeof req.query.conversation === 'string' && req.query.conversation ? req.query.conversation : undefined,
      send: (event, data) => { res.write(`event: ${event}\ndata: ${redactJson(ces, data)}\n\n`); },
    };
    listeners.add(l);
    streams.add(reply);
    l.send('hello', { at: new Date(ces.clock.now()).toISOString() });
    const ping = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    ping.unref();
    res.on('close', () => { clearInterval(ping); listeners.delete(l); streams.delete(reply); });
  });
};
export default area;
