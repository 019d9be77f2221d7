// Conversation history: the well-formed entries (`formatHistory=0`) and the legacy formatted transcript string.
export type HistoryEntry = [number, string, string] | [number, string, string, number];

/** History type codes of the spec; only 1 and 2 carry epoch millis as a fourth element. */
export const HISTORY_CODES = { operatorText: 1, visitorText: 2, notification: 3, link: 5, operatorRich: 6, visitorRich: 7 } as const;
export const CODES_WITH_EPOCH: readonly number[] = [HISTORY_CODES.operatorText, HISTORY_CODES.visitorText];

const WHO: Record<number, string> = { 1: 'Operator', 2: 'Visitor', 3: 'System', 5: 'Link', 6: 'Operator (rich content)', 7: 'Visitor (rich content)' };

/** The stored entries, shaped exactly as the spec says (fourth element only for codes 1 and 2). */
export function wellFormed(stored: unknown[][]): HistoryEntry[] {
  return stored.map((e) => {
    const [code, at, text, epoch] = e as [number, string, string, number | undefined];
    return CODES_WITH_EPOCH.includes(code) ? [code, at, text, Number(epoch ?? Date.parse(at.replace(' ', 'T') + 'Z'))] : [code, at, text];
  });
}

/** The legacy transcript (no `formatHistory=0`, or the plain `/conversation` path): one `[datetime] Who: text` line per entry. */
export function formatted(stored: unknown[][]): string {
  return stored.map((e) => {
    const [code, at, text] = e as [number, string, string];
    return `[${at}] ${WHO[code] ?? 'Unknown'}: ${text}`;
  }).join('\n');
}
