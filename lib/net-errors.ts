// Network error codes (Node's TLS and sockets, undici) read in one place: an error's code, whether it means an untrusted certificate, whether the server does not speak TLS.

/** A network error's code (undici puts the socket's on the error or on its cause). */
export function errorCode(e: unknown): string | undefined {
  const x = e as { code?: string; cause?: { code?: string } };
  return x?.code && x.code !== 'UND_ERR_SOCKET' ? x.code : x?.cause?.code ?? x?.code;
}

/**
 * Codes of a certificate that is not trusted (the URL answers, its certificate does not verify): OpenSSL's verification codes
 * (SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, ...) and Node's host name check. Matched
 * against a code, or against the code within an error's one-line text (a recorded exchange keeps only that).
 */
export const CERT_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME_INVALID|HOSTNAME_MISMATCH/;

/** Codes of a TLS connection to a server that answered in plain HTTP (an https:// URL for an http:// server). */
const NOT_TLS_CODES = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);

export const isCertError = (e: unknown): boolean => CERT_CODE.test(errorCode(e) ?? '');
export const isNotTls = (e: unknown): boolean => NOT_TLS_CODES.has(errorCode(e) ?? '');
