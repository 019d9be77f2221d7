// Baseline of the REST benchmark in its own process: a bare node:https server answering the same bytes, content type and TLS as the service.
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

const [certFile, keyFile, bodyFile, contentType] = process.argv.slice(2);
if (!certFile || !keyFile || !bodyFile || !contentType) {
  console.error('usage: bare-server.ts <cert.pem> <key.pem> <body file> <content type>');
  process.exit(2);
}
const body = fs.readFileSync(bodyFile);
// Headers built once: the baseline does nothing per request but write the answer.
const headers = { 'content-type': contentType, 'content-length': body.length };
const server = https.createServer({ cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8'), keepAliveTimeout: 30_000 }, (_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
