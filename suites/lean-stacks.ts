// Stack traces in Playwright's workers written at a fraction of their cost: mapped to the TypeScript only where a source map can exist (this package's own files).
//
// Why: Playwright captures a stack (up to 50 frames) for every expect() and every step, and formats it through source-map-support,
// which clones and maps every frame, also the 40-odd of Playwright, undici and Node that never have a map. A CPU profile of a
// REST-suite worker showed a fifth of its time there. The text is the same: frames of this package's files go through
// source-map-support as before (report locations and error stacks still point at the .ts), the others are written as V8 writes
// them (source-map-support gives the same text for a frame without a map). An own frame's mapped text is kept by its V8 text
// (file, line, column and names: all that source-map-support reads of a frame mapped alone): a check's assertions run the same
// lines again and again, and mapping them was still a fifth of a REST-suite worker's CPU.
// A frame of a function named UNSEEN (this package's own wrappers around a matcher) is left out, so Playwright places a step or a
// failure where the check called the matcher, as it did before the wrapper.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';

const LEAN = Symbol.for('ces.leanStacks');
/** The name of a function of this package whose frames stacks leave out (suites/verdicts.ts names its matcher wrapper so). */
export const UNSEEN = 'unseenInStacks';
type Prepare = (error: Error, frames: NodeJS.CallSite[]) => string;

/** Installs the lean formatter over the one in place (source-map-support's, installed by Playwright before any test file loads); once per process. */
export function leanStacks(root = ROOT): void {
  const mapped = Error.prepareStackTrace as (Prepare & { [LEAN]?: true }) | undefined;
  if (typeof mapped !== 'function' || mapped[LEAN]) return;
  const own = `${root}${path.sep}`;
  const modules = `${path.sep}node_modules${path.sep}`;
  const mappable = new Map<string, boolean>();
  const isOwn = (frame: NodeJS.CallSite): boolean => {
    const name = frame.getFileName();
    if (!name) return false;
    let yes = mappable.get(name);
    if (yes === undefined) {
      const file = name.startsWith('file://') ? fileURLToPath(name) : name;
      yes = file.startsWith(own) && !file.slice(own.length).includes(modules);
      mappable.set(name, yes);
    }
    return yes;
  };
  const mappedFrames = new Map<string, string>();
  const lean: Prepare & { [LEAN]?: true } = (error, frames) => {
    const head = mapped(error, []);
    let text = head;
    for (const frame of frames) {
      const v8 = frame.toString();
      if (!isOwn(frame)) { text += `\n    at ${v8}`; continue; }
      let line = mappedFrames.get(v8);
      if (line === undefined) { line = frame.getFunctionName() === UNSEEN ? '' : mapped(error, [frame]).slice(head.length); mappedFrames.set(v8, line); }
      text += line;
    }
    return text;
  };
  lean[LEAN] = true;
  Error.prepareStackTrace = lean;
}

leanStacks();
