// The fake connector's hidden bugs (issue 41): faults that a scripted check does not meet and `ces explore connector` must find (a 500 on the n-th visitor message, an operator message answered after a quick-reply click, a crash on one class of characters, variables leaking into the next conversation after a click).

/**
 * Classes of characters a connector's text handling may trip on, by Unicode property (no backtracking: single-character classes).
 * `crashOnCharacters` names one; the explorer does not read this table (its generator is not tuned to it).
 */
export const CHARACTER_CLASSES = {
  emoji: /\p{Extended_Pictographic}/u,
  han: /\p{Script=Han}/u,
  rtl: /[\p{Script=Arabic}\p{Script=Hebrew}]/u,
  combining: /\p{M}/u,
  astral: /[\u{10000}-\u{10FFFF}]/u,
  invisible: /\p{Cf}/u,
} as const;
export type CharacterClass = keyof typeof CHARACTER_CLASSES;
export const CHARACTER_CLASS_NAMES = Object.keys(CHARACTER_CLASSES) as CharacterClass[];

/** The hidden-bug modes with a value (the other modes are booleans): what each accepts, for the control API's validation. */
export const VALUED_MODES = {
  /** 500 on the n-th visitor message of every conversation (n from 1). */
  failOnVisitorMessage: (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000,
  /** Visitor texts with a character of this class crash the handler: the connection is closed without an answer. */
  crashOnCharacters: (v: unknown): boolean => typeof v === 'string' && (CHARACTER_CLASS_NAMES as string[]).includes(v),
} as const;
export type ValuedModes = { failOnVisitorMessage?: number; crashOnCharacters?: CharacterClass };

/** What the fake keeps of one conversation for the hidden bugs (the same object under the service's id and its own). */
export interface ConversationMemory {
  visitorMessages: number;
  /** Quick-reply values of the last answer, and texts the bot sent (its echoes come back as operator messages). */
  offered: string[];
  sent: Set<string>;
  clicked: boolean;
  /** The conversation's first visitor text (kept as a variable by the leaking connector). */
  firstText?: string;
  /** leakVariablesAfterClick: another conversation's variables this one started with (the bug). */
  inherited?: Array<{ key: string; value: string }>;
}

export const newMemory = (): ConversationMemory => ({ visitorMessages: 0, offered: [], sent: new Set(), clicked: false });

/** True when a visitor text has a character of `cls`. */
export const hasCharacterOf = (cls: CharacterClass, text: string): boolean => CHARACTER_CLASSES[cls].test(text);

/** Remembers what the bot answered: the quick replies offered and the texts sent (so an echo is told from another operator message). */
export function rememberAnswer(m: ConversationMemory, replies: Array<Record<string, any>>): void {
  const messages = replies.filter((r) => r?.type === 'message');
  m.offered = messages.flatMap((r) => (Array.isArray(r.quickReplies) ? r.quickReplies.map((q: any) => q?.value).filter((v: unknown): v is string => typeof v === 'string') : []));
  for (const r of messages) if (r.payload?.contentType === 'text' && typeof r.payload.value === 'string') m.sent.add(r.payload.value);
}

/** The reply the connector with `operatorReplyAfterClick` gives an operator message it did not send, once its visitor clicked. */
export const AFTER_CLICK_REPLY = { type: 'message', payload: { contentType: 'text', value: 'Thanks, I noted your choice.' } } as const;
