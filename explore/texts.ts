// Visitor and operator texts the explorer sends: faker's words (seeded from fast-check's random, so --seed replays them), any Unicode grapheme, emoji, whitespace-only texts and long texts up to --max-text; each conversation's token.
import fc from 'fast-check';
import { Faker, base, en } from '@faker-js/faker';

/** Longest visitor text sent unless --max-text says otherwise (the spec sets no limit on visitor texts; 450 is the bot's). */
export const DEFAULT_MAX_TEXT = 1_000;
/** Bounds of --max-text. */
export const MAX_TEXT_RANGE = { min: 20, max: 100_000 } as const;

/** A text's body and whether it carries its conversation's token (a whitespace-only text cannot). */
export interface TextBody { body: string; tokened: boolean }

/** One faker per run (not per module: nothing mutable at module level), seeded per value from fast-check's random. */
export const newFaker = (): Faker => new Faker({ locale: [en, base] });

const seeded = <T>(faker: Faker, make: (f: Faker) => T): fc.Arbitrary<T> => fc.noBias(fc.integer({ min: 0, max: 2 ** 31 - 1 })).map((seed) => { faker.seed(seed); return make(faker); });

const WHITESPACE = [' ', '\t', '\n', '\u00a0', '\u2003', '\u3000', '\u200b', '\ufeff'];

/** The kinds of visitor text, with their weights: words most often, the rest often enough to be met in a few sessions. */
export function visitorBody(faker: Faker, maxText: number): fc.Arbitrary<TextBody> {
  const tokened = (a: fc.Arbitrary<string>) => a.map((body) => ({ body, tokened: true }));
  return fc.oneof(
    { weight: 3, arbitrary: tokened(seeded(faker, (f) => f.helpers.arrayElement([() => f.lorem.sentence(), () => f.hacker.phrase(), () => f.commerce.productName(), () => f.word.words({ count: { min: 1, max: 4 } })])())) },
    // Any grapheme of Unicode: scripts, combining sequences, symbols beyond the Basic Multilingual Plane.
    { weight: 3, arbitrary: tokened(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 16 })) },
    { weight: 2, arbitrary: tokened(seeded(faker, (f) => `${f.word.words({ count: { min: 0, max: 3 } })} ${f.internet.emoji()}${f.datatype.boolean() ? f.internet.emoji() : ''}`.trim())) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...WHITESPACE), minLength: 1, maxLength: 6 }).map((body) => ({ body, tokened: false })) },
    { weight: 1, arbitrary: tokened(fc.integer({ min: Math.min(200, maxText), max: maxText }).chain((n) => seeded(faker, (f) => f.lorem.paragraphs(Math.ceil(n / 150) + 1).slice(0, n)))) },
  );
}

/** Texts of operator messages (a human operator writing in the conversation). */
export const operatorText = (faker: Faker): fc.Arbitrary<string> => seeded(faker, (f) => f.helpers.arrayElement([() => f.lorem.sentence(), () => `${f.person.firstName()} from the desk here: ${f.hacker.phrase()}`])());

/** A conversation's token: `tk<n>-` and five letters or digits, so no token is part of another. */
export const tokenSuffix = (): fc.Arbitrary<string> => fc.integer({ min: 0, max: 36 ** 5 - 1 }).map((n) => n.toString(36).padStart(5, '0'));
export const tokenOf = (conversationIndex: number, suffix: string): string => `tk${conversationIndex}-${suffix}`;

/** The text sent: the body, with the token after it when it carries one; never longer than maxText. */
export function withToken(b: TextBody, token: string, maxText: number): string {
  if (!b.tokened) return b.body;
  const room = Math.max(0, maxText - token.length - 1);
  // Cut by code points: half a surrogate pair is not a text the service would send.
  const points = [...b.body];
  return `${points.length > room ? points.slice(0, room).join('') : b.body} ${token}`.trim();
}
