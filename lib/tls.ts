// A certificate authority generated at start, and server certificates it signs, so every part speaks HTTPS.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

export interface Pem { cert: string; key: string }
export interface TlsMaterial { ca: Pem; server: Pem }

/**
 * ECDSA P-256 keys: Node generates one in a tenth of a millisecond, where an RSA 2048 key took about 0.35 s of CPU (two per
 * generateTls, which every `ces` run and every stack started on its own calls), and a TLS handshake signs with it in far less
 * time too. Every client of the harness (Node, Chromium, k6, Python) accepts them.
 */
function ecKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), spkiDer: publicKey.export({ type: 'spki', format: 'der' }) };
}

const { asn1, pki } = forge;
const { Class, Type } = asn1;
/** ecdsa-with-SHA256 (RFC 5758), the algorithm of every signature here. */
const ECDSA_SHA256 = () => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer('1.2.840.10045.4.3.2').getBytes())]);
const binary = (b: Buffer) => b.toString('binary');

/** The subjectKeyIdentifier extension of a key (RFC 5280 4.2.1.2, method 1: SHA-1 of the subjectPublicKey bits), encoded here: forge derives it from RSA keys only. */
function keyIdentifier(spkiDer: Buffer) {
  const spki = asn1.fromDer(binary(spkiDer));
  const bits = (spki.value as forge.asn1.Asn1[])[1]!.value as string;
  const digest = createHash('sha1').update(Buffer.from(bits.slice(1), 'binary')).digest();
  return { name: 'subjectKeyIdentifier', value: asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, binary(digest)) };
}
/** forge's encoder of a certificate's extensions, [3] tag included (not in its type declarations). */
const extensionsToAsn1 = (pki as unknown as { certificateExtensionsToAsn1(e: unknown[]): forge.asn1.Asn1 }).certificateExtensionsToAsn1;

interface CertSpec { subject: forge.pki.CertificateField[]; issuer: forge.pki.CertificateField[]; extensions: unknown[]; spkiDer: Buffer; days: number }

/**
 * An X.509 v3 certificate signed by `signer`: forge encodes the names and extensions (it knows no EC key, so the rest is built
 * here: the key's own SubjectPublicKeyInfo, and Node's ECDSA signature).
 */
function certificate(spec: CertSpec, signer: KeyObject): string {
  const fields = pki.createCertificate();
  fields.setSubject(spec.subject);
  fields.setIssuer(spec.issuer);
  fields.setExtensions(spec.extensions as never[]);
  const time = (d: Date) => asn1.create(Class.UNIVERSAL, Type.UTCTIME, false, asn1.dateToUtcTime(d));
  const tbs = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(Class.UNIVERSAL, Type.INTEGER, false, asn1.integerToDer(2).getBytes())]),
    // Positive (first byte 01) and unique per certificate.
    asn1.create(Class.UNIVERSAL, Type.INTEGER, false, binary(Buffer.concat([Buffer.from([1]), randomBytes(8)]))),
    ECDSA_SHA256(),
    pki.distinguishedNameToAsn1(fields.issuer),
    asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [time(new Date(Date.now() - 60_000)), time(new Date(Date.now() + spec.days * 86_400_000))]),
    pki.distinguishedNameToAsn1(fields.subject),
    asn1.fromDer(binary(spec.spkiDer)),
    // [3] EXPLICIT Extensions, the tag included.
    extensionsToAsn1(fields.extensions),
  ]);
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, signer);
  const cert = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [tbs, ECDSA_SHA256(), asn1.create(Class.UNIVERSAL, Type.BITSTRING, false, `\u0000${binary(signature)}`)]);
  return forge.pem.encode({ type: 'CERTIFICATE', body: asn1.toDer(cert).getBytes() });
}

/** A fresh CA and one server certificate for localhost, 127.0.0.1 and ::1 (plus any extra host names). */
export function generateTls(extraHosts: string[] = []): TlsMaterial {
  const caKeys = ecKeys();
  // A unique subject per CA: two harness CAs trusted together (serve --connector-url another serve) must not be confused by name.
  const caSubject = [{ name: 'commonName', value: `CES harness test CA ${randomBytes(6).toString('hex')}` }];
  const caCert = certificate({
    subject: caSubject, issuer: caSubject, spkiDer: caKeys.spkiDer, days: 30,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      keyIdentifier(caKeys.spkiDer),
    ],
  }, caKeys.privateKey);

  const srvKeys = ecKeys();
  const altNames: Array<Record<string, unknown>> = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
    ...extraHosts.map((h) => (/^[\d.]+$/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
  ];
  const srvCert = certificate({
    subject: [{ name: 'commonName', value: 'localhost' }], issuer: caSubject, spkiDer: srvKeys.spkiDer, days: 30,
    extensions: [
      { name: 'basicConstraints', cA: false },
      // An ECDSA key signs (digitalSignature); keyEncipherment is for RSA key transport.
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  }, caKeys.privateKey);

  return {
    ca: { cert: caCert, key: caKeys.keyPem },
    server: { cert: srvCert + caCert, key: srvKeys.keyPem },
  };
}
