// Secrets never reach logs or reports: every known key, password, token and secret is replaced before anything is written.
const secrets = new Set<string>();

/** Registers a secret (API key, password, bearer token, signing secret) to be masked everywhere. */
export function addSecret(s: string | undefined | null): void {
  if (s && s.length >= 4) secrets.add(s);
}

export function knownSecrets(): string[] { return [...secrets]; }

export function mask(text: string): string {
  let out = text;
  // Longest first, so a secret containing another is masked whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  // Also encoded forms: Basic credentials and URL-encoded values.
  for (const s of secrets) {
    const enc = encodeURIComponent(s);
    if (enc !== s) out = out.split(enc).join('***');
    const b64 = Buffer.from(`${s}:`).toString('base64').replace(/=+$/, '');
    out = out.split(b64).join('***');
  }
  return out.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, '$1***');
}
