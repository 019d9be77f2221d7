// Baseline poller for the polling benchmark: N bots polled at a fixed 1 s rate by bare Node (timers + undici), signed per G2, nothing else running.
import fs from 'node:fs';
import { Agent, request } from 'undici';
import { sign, SIGNATURE_HEADER } from '../../lib/signature.js';
import { LIMITS } from '../../lib/limits.js';

const [connectorUrl, secret, caFile, countArg, secondsArg] = process.argv.slice(2);
if (!connectorUrl || !secret || !caFile || !countArg || !secondsArg) {
  console.error('usage: bare-poller.ts <connector_url> <secret> <ca_file> <bots> <seconds>');
  process.exit(2);
}
const agent = new Agent({ connect: { ca: fs.readFileSync(caFile, 'utf8') }, connections: 64 });
const stopAt = performance.now() + Number(secondsArg) * 1000;
for (let k = 1; k <= Number(countArg); k++) {
  const raw = `idOperator=bare-${k}&idConnectorVersion=00000000-0000-4000-8000-00000000ba5e&idWebsite=1`;
  let next = performance.now() + (k * LIMITS.availabilityPollMs) / Number(countArg);
  const tick = () => {
    if (performance.now() > stopAt) return;
    next += LIMITS.availabilityPollMs;
    setTimeout(tick, Math.max(0, next - performance.now()));
    request(`${connectorUrl}/availability-strategies?${raw}`, { dispatcher: agent, headers: { [SIGNATURE_HEADER]: sign(secret, raw) } })
      .then((r) => r.body.dump()).catch(() => {});
  };
  setTimeout(tick, Math.max(0, next - performance.now()));
}
setTimeout(() => { void agent.close(); }, Number(secondsArg) * 1000 + 2000).unref();
