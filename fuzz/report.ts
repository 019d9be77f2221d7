// The fuzz run's reports: fuzz.json (every figure), fuzz.html (figures, cases per operation, failures with their reproductions), long
// request bodies as files beside them, and the terminal summary.
import fs from 'node:fs';
import path from 'node:path';
import { esc } from '../lib/landing.js';
import { curl, INLINE_BODY_MAX, keyVar, tokenVar } from './exchange.js';
import type { FuzzReport } from './run.js';
import type { Target } from '../lib/target.js';

/** Shell lines that set the variables the reproductions use (URLs in clear; secrets named, never written). */
export function reproductionSetup(target: Target, clients: number, embedded: boolean): string[] {
  return [
    `export CES_BASE_URL='${target.base_url}' CES_REST_BASE_URL='${target.rest_base_url}'${target.rest_ha_base_url ? ` CES_REST_HA_BASE_URL='${target.rest_ha_base_url}'` : ''} CES_GRAPHQL_URL='${target.graphql_url}'${target.ca_file ? ` CES_CA_FILE='${target.ca_file}'` : ''}`,
    `# ${Array.from({ length: clients }, (_, c) => `$${keyVar(c)}`).join(', ')}: the API keys of the target file (clients ${Array.from({ length: clients }, (_, c) => c + 1).join(', ')}); ` +
      `$${tokenVar(0)}${clients > 1 ? `, $${tokenVar(1)}` : ''}: bearer tokens of their users from POST $CES_BASE_URL/oauth2/token (grant_type=password)`,
    ...(embedded ? ['# the embedded reference implementation stopped with this run: start one with `ces serve --ready-file t.json` (and the same --deviate) and take URLs and keys from t.json'] : []),
  ];
}

/** Writes fuzz.json, fuzz.html and the long bodies of reproductions; rewrites each failure's curl to use its body file. */
export function writeFuzzReports(dir: string, r: FuzzReport, target: Target, embedded: boolean): { html: string; json: string } {
  r.failures.forEach((f, i) => {
    if (f.request.body === undefined || f.request.body.length <= INLINE_BODY_MAX) return;
    const file = path.join(dir, `repro-${i + 1}.body`);
    fs.writeFileSync(file, f.request.body);
    f.curl = curl(f.request, target.ca_file, file);
  });
  const json = path.join(dir, 'fuzz.json');
  fs.writeFileSync(json, JSON.stringify(r, null, 2));
  const setup = reproductionSetup(target, r.isolation.clients, embedded);
  const fewest = [...r.operations].sort((a, b) => a.cases - b.cases)[0];
  const rows = r.operations.map((o) => `<tr class="${o.failures ? 'v-fail' : ''}"><td>${esc(o.id)}</td><td>${o.cases}</td><td>${o.requests}</td><td>${o.slowestMs}</td><td>${o.failures}</td></tr>`).join('');
  const fails = r.failures.map((f, i) => `<section id="failure-${i + 1}"><h3>${i + 1}. ${esc(f.operation)} — ${esc(f.oracle)}</h3><p>${esc(f.message)}</p>`
    + `<p class="meta">found after ${f.casesBefore} cases of the operation, shrunk in ${f.shrinks} steps; ${f.reproduced ? 'reproduced when sent again' : 'NOT reproduced when sent again (flaky)'}; auth: ${esc(f.auth)}</p>`
    + `<pre>${esc(f.curl)}</pre><details><summary>answer ${f.answer.status} in ${f.answer.ms} ms</summary><pre>${esc(f.answer.body)}</pre></details></section>`).join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ces fuzz — ${esc(target.base_url)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2rem;max-width:80rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
.v-fail{background:#fde2e2}pre{white-space:pre-wrap;word-break:break-all;background:#f5f5f5;padding:.5rem}.meta{color:#555}.ok{color:#0a6b2d}.ko{color:#a4161a}</style></head><body>
<h1>ces fuzz</h1>
<p class="${r.failures.length ? 'ko' : 'ok'}"><strong>${r.failures.length ? `${r.failures.length} failure(s) found` : 'No failure found'}</strong></p>
<dl><dt>Target</dt><dd><code>${esc(target.base_url)}</code>${embedded ? ' (embedded reference implementation)' : ''}</dd>
<dt>Seed, budget, duration</dt><dd>${r.seed}, ${r.budgetMs / 1000} s, ${(r.durationMs / 1000).toFixed(1)} s</dd>
<dt>Cases</dt><dd>${r.totals.cases} over ${r.totals.operations} operations (floor ${r.floor} per operation; fewest: ${fewest ? `${fewest.cases}, ${esc(fewest.id)}` : '—'}), ${r.totals.requests} requests with shrinking</dd>
<dt>5xx answers, leaks</dt><dd>${r.totals.serverErrors}, ${r.totals.leaks}</dd>
<dt>Slowest answer</dt><dd>${r.slowest ? `${r.slowest.ms} ms (${esc(r.slowest.operation)})` : '—'}</dd>
<dt>Event loop's longest block</dt><dd>${esc(loopText(r))}</dd>
<dt>Tenant isolation</dt><dd>${r.isolation.checked ? `checked with ${r.isolation.clients} clients (ids seen: ${r.isolation.ownedIds.join(', ')})` : 'not checked (one client)'}</dd></dl>
${r.notes.map((n) => `<p class="meta">Note: ${esc(n)}</p>`).join('')}
<h2>Failures (each shrunk to a minimal request)</h2>
${r.failures.length ? `<pre>${esc(setup.join('\n'))}</pre>${fails}` : '<p>None.</p>'}
<h2>Cases per operation</h2><table><thead><tr><th>operation</th><th>cases</th><th>requests</th><th>slowest ms</th><th>failures</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
  const htmlFile = path.join(dir, 'fuzz.html');
  fs.writeFileSync(htmlFile, html);
  return { html: htmlFile, json };
}

/** The event loops' longest blocks: the service's (its own thread, when embedded) against the limit, then the fuzzer's own. */
function loopText(r: FuzzReport): string {
  const { service, fuzzer, limitMs, loadAverage, cores } = r.eventLoop;
  const own = `this process (the fuzzer's own work): ${fuzzer.maxMs} ms, p99 ${fuzzer.p99Ms} ms; machine load average ${loadAverage} on ${cores} cores`;
  return service ? `service ${service.maxMs} ms (p99 ${service.p99Ms} ms; the embedded service's own thread; limit ${limitMs} ms); ${own}` : `service not measured (it runs elsewhere); ${own}`;
}

/** The terminal summary. */
export function printFuzzSummary(r: FuzzReport, target: Target, embedded: boolean, print: (s: string) => void = console.log): void {
  const fewest = [...r.operations].sort((a, b) => a.cases - b.cases)[0];
  print(`\noperations: ${r.totals.operations}; cases: ${r.totals.cases} (floor ${r.floor} per operation; fewest ${fewest?.cases} for ${fewest?.id}); requests: ${r.totals.requests}; ${(r.durationMs / 1000).toFixed(1)} s`);
  print(`5xx answers: ${r.totals.serverErrors}; leaks: ${r.totals.leaks}; slowest answer: ${r.slowest ? `${r.slowest.ms} ms (${r.slowest.operation})` : '—'}`);
  const { service, limitMs, loadAverage, cores } = r.eventLoop;
  const loaded = loadAverage > cores ? ' (the machine was loaded: a thread waiting for a CPU counts as blocked; run alone to judge the service)' : '';
  print(`event loop's longest block: ${loopText(r)}${service && service.maxMs > limitMs ? `  WARNING: over the limit${loaded}` : ''}`);
  if (!r.isolation.checked) print('tenant isolation: not checked (the target file names one API key)');
  for (const n of r.notes) print(`note: ${n}`);
  if (!r.failures.length) { print('failures: none'); return; }
  print(`failures: ${r.failures.length} (each shrunk to a minimal request)\n`);
  for (const line of reproductionSetup(target, r.isolation.clients, embedded)) print(line);
  r.failures.forEach((f, i) => {
    print(`\n${i + 1}. ${f.operation} — ${f.oracle}: ${f.message.slice(0, 500)}${f.reproduced ? '' : ' (not reproduced when sent again)'}`);
    print(`   ${f.curl}`);
  });
}
