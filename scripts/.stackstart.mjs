// temporary measurement (not committed)
const { startEmbedded } = await import(process.argv[2] + '/dist/cli/embedded.js');
const c0 = process.cpuUsage(); const t0 = performance.now();
const e = await startEmbedded({});
const r = await e.ready;
const c = process.cpuUsage(c0);
const ready = performance.now() - t0;
await r.close();
const c2 = process.cpuUsage(c0);
console.log('start cpu', ((c.user + c.system) / 1000).toFixed(0), 'ms; wall', ready.toFixed(0), '; with close', ((c2.user + c2.system) / 1000).toFixed(0));
