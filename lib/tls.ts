// A certificate authority generated at start, and server certificates it signs, so every part speaks HTTPS.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface Pem { cert: string; key: string }
export interface TlsMaterial { ca: Pem; server: Pem }

function rsaKeys() {
  // Native key generation: forge's pure-JS RSA takes seconds, and start-up must stay fast.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const pubPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return { keyPem, privateKey: forge.pki.privateKeyFromPem(keyPem), publicKey: forge.pki.publicKeyFromPem(pubPem) };
}

function baseCert(publicKey: forge.pki.PublicKey, days: number) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * 86_400_000);
  return cert;
}

/** A fresh CA and one server certificate for localhost, 127.0.0.1 and ::1 (plus any extra host names). */
export function generateTls(extraHosts: string[] = []): TlsMaterial {
  const caKeys = rsaKeys();
  const caCert = baseCert(caKeys.publicKey, 30);
  // A unique subject per CA: two harness CAs trusted together (serve --connector-url another serve) must not be confused by name.
  const caSubject = [{ name: 'commonName', value: `CES harness test CA ${randomBytes(6).toString('hex')}` }];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(caKeys.privateKey, forge.md.sha256.create());

  const srvKeys = rsaKeys();
  const srvCert = baseCert(srvKeys.publicKey, 30);
  srvCert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  srvCert.setIssuer(caSubject);
  const altNames: Array<Record<string, unknown>> = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
    ...extraHosts.map((h) => (/^[\d.]+$/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
  ];
  srvCert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  srvCert.sign(caKeys.privateKey, forge.md.sha256.create());

  return {
    ca: { cert: forge.pki.certificateToPem(caCert), key: caKeys.keyPem },
    server: { cert: forge.pki.certificateToPem(srvCert) + forge.pki.certificateToPem(caCert), key: srvKeys.keyPem },
  };
}
