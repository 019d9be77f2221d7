// A linear-time regular-expression matcher (Thompson NFA / Pike VM) for the hand-written `match` expectations of transcripts: a user-written pattern can never backtrack.
//
// Why not RegExp: V8's engine backtracks, so `(a|a)*b` against a long text takes exponential time, and star-height checks
// (safe-regex) miss such patterns. This engine runs every pattern in O(pattern × text) steps. It supports the common
// subset (literals, `.`, classes, `\d \w \s` and their negations, groups, alternation, `* + ? {n,m}` greedy or lazy,
// `^ $`) and refuses, with a clear message, what needs backtracking (backreferences, lookaround, `\b`).

/** Longest pattern accepted (characters): expectations are short; a bound keeps the compiled program small. */
export const PATTERN_MAX = 500;
/** Highest count in `{n,m}`: counted repetition is expanded into the program. */
export const REPEAT_MAX = 1_000;
/** Largest compiled program (instructions). */
const PROGRAM_MAX = 20_000;

export class PatternError extends Error {}

type ClassItem = { lo: number; hi: number } | { named: 'd' | 'w' | 's'; neg: boolean };
interface CharSet { items: ClassItem[]; neg: boolean }
type Node =
  | { t: 'set'; set: CharSet }
  | { t: 'dot' }
  | { t: 'bol' } | { t: 'eol' }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number };

const isDigit = (c: number) => c >= 48 && c <= 57;
const isWord = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
// The characters JavaScript's \s matches.
const SPACES = new Set([9, 10, 11, 12, 13, 32, 160, 5760, 8232, 8233, 8239, 8287, 12288, 65279]);
const isSpace = (c: number) => SPACES.has(c) || (c >= 8192 && c <= 8202);
const namedTest = { d: isDigit, w: isWord, s: isSpace } as const;
const LINE_TERMINATORS = new Set([10, 13, 8232, 8233]);

function inSet(set: CharSet, c: number): boolean {
  let hit = false;
  for (const it of set.items) {
    if ('named' in it ? namedTest[it.named](c) !== it.neg : c >= it.lo && c <= it.hi) { hit = true; break; }
  }
  return hit !== set.neg;
}

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  private fail(msg: string): never { throw new PatternError(`${msg} at position ${this.i} of ${JSON.stringify(this.src)}`); }
  private peek(): string | undefined { return this.src[this.i]; }

  parse(): Node {
    const n = this.alternation();
    if (this.i < this.src.length) this.fail(`unexpected ${JSON.stringify(this.peek())}`);
    return n;
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.peek() === '|') { this.i++; alts.push(this.sequence()); }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') items.push(this.quantified());
    return { t: 'seq', items };
  }

  private quantified(): Node {
    let atom = this.atom();
    for (;;) {
      const c = this.peek();
      let min: number; let max: number;
      if (c === '*') { min = 0; max = Infinity; this.i++; }
      else if (c === '+') { min = 1; max = Infinity; this.i++; }
      else if (c === '?') { min = 0; max = 1; this.i++; }
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
        if (!m) return atom; // a `{` that is no quantifier is a literal, as in JavaScript
        min = Number(m[1]); max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        if (min > REPEAT_MAX || (max !== Infinity && max > REPEAT_MAX)) this.fail(`repetition count over ${REPEAT_MAX}`);
        if (max < min) this.fail('numbers out of order in {} quantifier');
        this.i += m[0].length;
      } else return atom;
      if (atom.t === 'bol' || atom.t === 'eol') this.fail('nothing to repeat');
      if (this.peek() === '?') this.i++; // lazy: same yes/no answer as greedy
      atom = { t: 'rep', node: atom, min, max };
    }
  }

  private atom(): Node {
    const c = this.src[this.i++];
    switch (c) {
      case '(': {
        if (this.src.startsWith('?:', this.i)) this.i += 2;
        else if (this.src.startsWith('?<', this.i) && !/^\?<[=!]/.test(this.src.slice(this.i))) {
          const end = this.src.indexOf('>', this.i);
          if (end < 0) this.fail('unterminated group name');
          this.i = end + 1;
        } else if (this.peek() === '?') this.fail('lookaround is not supported in match patterns (they run on a linear-time engine)');
        const inner = this.alternation();
        if (this.src[this.i++] !== ')') this.fail('missing )');
        return inner;
      }
      case ')': return this.fail('unmatched )');
      case '^': return { t: 'bol' };
      case '$': return { t: 'eol' };
      case '.': return { t: 'dot' };
      case '[': return { t: 'set', set: this.charClass() };
      case '\\': return { t: 'set', set: { items: [this.escape(false)], neg: false } };
      case '*': case '+': case '?': return this.fail('nothing to repeat');
      case undefined: return this.fail('unexpected end');
      default: { const cp = c.codePointAt(0)!; return { t: 'set', set: { items: [{ lo: cp, hi: cp }], neg: false } }; }
    }
  }

  private escape(inClass: boolean): ClassItem {
    const c = this.src[this.i++];
    if (c === undefined) this.fail('\\ at end of pattern');
    const one = (cp: number): ClassItem => ({ lo: cp, hi: cp });
    switch (c) {
      case 'd': case 'w': case 's': return { named: c, neg: false };
      case 'D': case 'W': case 'S': return { named: c.toLowerCase() as 'd' | 'w' | 's', neg: true };
      case 't': return one(9);
      case 'n': return one(10);
      case 'v': return one(11);
      case 'f': return one(12);
      case 'r': return one(13);
      case '0': return one(0);
      case 'x': case 'u': {
        const len = c === 'x' ? 2 : 4;
        const hex = this.src.slice(this.i, this.i + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.fail(`\\${c} needs ${len} hex digits`);
        this.i += len;
        return one(parseInt(hex, 16));
      }
      case 'b': if (inClass) return one(8); return this.fail('\\b is not supported in match patterns (use spaces or ^ $)');
      case 'B': case 'k': case 'p': case 'P': case 'c': return this.fail(`\\${c} is not supported in match patterns`);
      default:
        if (/[1-9]/.test(c)) this.fail('backreferences are not supported in match patterns (they run on a linear-time engine)');
        if (/[A-Za-z]/.test(c)) this.fail(`unknown escape \\${c}`);
        return one(c.codePointAt(0)!);
    }
  }

  private charClass(): CharSet {
    const set: CharSet = { items: [], neg: false };
    if (this.peek() === '^') { set.neg = true; this.i++; }
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      if (this.i >= this.src.length) this.fail('missing ]');
      const lo = this.classAtom();
      if (this.peek() === '-' && this.src[this.i + 1] !== ']' && this.src[this.i + 1] !== undefined && !('named' in lo)) {
        this.i++;
        const hi = this.classAtom();
        if ('named' in hi) this.fail('a range cannot end with a class escape');
        if (hi.lo < lo.lo) this.fail('range out of order in character class');
        set.items.push({ lo: lo.lo, hi: hi.lo });
      } else set.items.push(lo);
    }
    this.i++;
    return set;
  }

  private classAtom(): ClassItem {
    const c = this.src[this.i++]!;
    if (c === '\\') return this.escape(true);
    const cp = c.codePointAt(0)!;
    return { lo: cp, hi: cp };
  }
}

type Op =
  | { op: 'set'; set: CharSet } | { op: 'dot' }
  | { op: 'split'; x: number; y: number } | { op: 'jmp'; x: number }
  | { op: 'bol' } | { op: 'eol' } | { op: 'match' };

function compile(node: Node): Op[] {
  const prog: Op[] = [];
  const emit = (o: Op) => { if (prog.length >= PROGRAM_MAX) throw new PatternError(`pattern too large once compiled (over ${PROGRAM_MAX} steps): lower the {n,m} counts`); prog.push(o); return prog.length - 1; };
  const gen = (n: Node): void => {
    switch (n.t) {
      case 'set': emit({ op: 'set', set: n.set }); return;
      case 'dot': emit({ op: 'dot' }); return;
      case 'bol': emit({ op: 'bol' }); return;
      case 'eol': emit({ op: 'eol' }); return;
      case 'seq': for (const x of n.items) gen(x); return;
      case 'alt': {
        const jumps: number[] = [];
        n.alts.forEach((a, k) => {
          if (k < n.alts.length - 1) {
            const split = emit({ op: 'split', x: 0, y: 0 });
            (prog[split] as { x: number }).x = prog.length;
            gen(a);
            jumps.push(emit({ op: 'jmp', x: 0 }));
            (prog[split] as { y: number }).y = prog.length;
          } else gen(a);
        });
        for (const j of jumps) (prog[j] as { x: number }).x = prog.length;
        return;
      }
      case 'rep': {
        for (let k = 0; k < n.min; k++) gen(n.node);
        if (n.max === Infinity) {
          const split = emit({ op: 'split', x: 0, y: 0 });
          (prog[split] as { x: number }).x = prog.length;
          gen(n.node);
          emit({ op: 'jmp', x: split });
          (prog[split] as { y: number }).y = prog.length;
        } else {
          const splits: number[] = [];
          for (let k = n.min; k < n.max; k++) {
            const split = emit({ op: 'split', x: 0, y: 0 });
            (prog[split] as { x: number }).x = prog.length;
            splits.push(split);
            gen(n.node);
          }
          for (const s of splits) (prog[s] as { y: number }).y = prog.length;
        }
      }
    }
  };
  gen(node);
  emit({ op: 'match' });
  return prog;
}

export interface LinearRegex { source: string; flags: string; test(text: string): boolean }

/** Compiles a pattern (flags: `i` ignore case, `s` dot matches line ends); throws PatternError with the reason. */
export function linearRegex(source: string, flags = ''): LinearRegex {
  if (typeof source !== 'string') throw new PatternError('a match pattern must be a string');
  if (source.length > PATTERN_MAX) throw new PatternError(`pattern longer than ${PATTERN_MAX} characters`);
  if (!/^[is]*$/.test(flags)) throw new PatternError(`flags ${JSON.stringify(flags)}: only "i" (ignore case) and "s" (dot matches line ends) are accepted`);
  const prog = compile(new Parser(source).parse());
  const ignoreCase = flags.includes('i');
  const dotAll = flags.includes('s');
  const charOk = (o: Op, c: number): boolean => {
    if (o.op === 'dot') return dotAll || !LINE_TERMINATORS.has(c);
    if (o.op !== 'set') return false;
    if (inSet(o.set, c)) return true;
    if (!ignoreCase) return false;
    const s = String.fromCodePoint(c);
    const lower = s.toLowerCase().codePointAt(0)!;
    const upper = s.toUpperCase().codePointAt(0)!;
    return (lower !== c && inSet(o.set, lower)) || (upper !== c && inSet(o.set, upper));
  };
  return {
    source, flags,
    test(text: string): boolean {
      const chars = Array.from(text, (ch) => ch.codePointAt(0)!);
      const n = chars.length;
      // Each step keeps at most one thread per instruction: the work per character is bounded by the program size.
      let current: number[] = [];
      const seen = new Int32Array(prog.length).fill(-1);
      let generation = 0;
      const add = (list: number[], pc: number, pos: number): boolean => {
        const stack = [pc];
        while (stack.length) {
          const p = stack.pop()!;
          if (seen[p] === generation) continue;
          seen[p] = generation;
          const o = prog[p]!;
          switch (o.op) {
            case 'match': return true;
            case 'jmp': stack.push(o.x); break;
            case 'split': stack.push(o.y, o.x); break;
            case 'bol': if (pos === 0) stack.push(p + 1); break;
            case 'eol': if (pos === n) stack.push(p + 1); break;
            default: list.push(p);
          }
        }
        return false;
      };
      for (let pos = 0; pos <= n; pos++) {
        // Unanchored search: a new thread starts at every position.
        if (add(current, 0, pos)) return true;
        if (pos === n) break;
        generation++;
        const next: number[] = [];
        const c = chars[pos]!;
        for (const pc of current) if (charOk(prog[pc]!, c) && add(next, pc + 1, pos + 1)) return true;
        current = next;
      }
      return false;
    },
  };
}
