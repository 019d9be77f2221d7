// Reads Playwright's JSON results and turns them into check outcomes, evidence and per-clause verdicts (exit code rule of DESIGN.md); scrubs secrets from run folders.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { loadClauses, type Clause, type Severity } from './catalogue.js';
import { mask } from './mask.js';
import { ANNOTATION, NOT_JUDGED_PREFIX, checkVerdict, unansweredOf, classifyOutcome, failingSeverity, runVerdict, strongest, verdictFor, type ClauseResult, type Judged, type Outcome, type Verdict } from './verdicts.js';
import { factKey, readFacts, specPath } from './run-facts.js';

export { failingSeverity, type Outcome, type Verdict };
export interface CheckResult {
  title: string;
  file: string;
  project: string;
  clauses: string[];
  outcome: Outcome;
  /** Why it failed or was skipped, as the report shows it. */
  reason?: string;
  durationMs: number;
  /** Stable id of the check's section in the run's evidence.html (`evidence.html#<anchor>`). */
  anchor?: string;
  /** A passed check that saw an allowed variant worth a WARN (lib/verdicts.ts), each with its reason. */
  warnings?: string[];
  /** A passed check that saw something worth a NOTE. */
  notes?: string[];
  /** Copy-paste reproductions of a failed or warned check (curl commands, `ces ... --only CLAUSE`). */
  reproductions?: string[];
  /** Results recorded per clause (lib/verdicts.ts Judged). */
  clauseResults?: Record<string, ClauseResult>;
  /** How a failure relates to the clause results (lib/verdicts.ts Judged). */
  failure?: Judged['failure'];
  /** `ces selftest`: the deviation switched on for this check, and the Playwright project it ran in. */
  deviation?: string;
  /** `ces selftest`: the alternatives switched on together for this check (a project of alternatives, cli/selftest-plan.ts). */
  alternatives?: string[];
  runProject?: string;
  /**
   * What this check saw that may be its target's absence rather than a wrong answer: its first request without an HTTP answer
   * (ANNOTATION.noAnswer), or its time-out. From records, never from a message (cli/commands/test.ts targetLost reads it).
   */
  unanswered?: string;
}

/** The per-clause records of a check's annotations (suites/verdicts.ts `under`): passes counted, failure reasons kept. */
export function clauseResultsOf(descriptions: string[]): Record<string, ClauseResult> | undefined {
  if (!descriptions.length) return undefined;
  const out: Record<string, ClauseResult> = {};
  for (const d of descriptions) {
    let r: { clause?: string; failed?: string; notJudged?: string };
    try { r = JSON.parse(d); } catch { continue; }
    if (!r.clause) continue;
    const c = (out[r.clause] ??= { passed: 0, failed: [] });
    if (r.failed !== undefined) c.failed.push(r.failed);
    else if (r.notJudged !== undefined) (c.notJudged ??= []).push(r.notJudged);
    else c.passed++;
  }
  return out;
}
export interface ClauseVerdict { clause: Clause; verdict: Verdict; checks: CheckResult[] }

/**
 * The checks of a Playwright JSON results file. How each ended is decided in one place (lib/verdicts.ts classifyOutcome) from
 * structure: its status, the facts of its hooks (lib/run-facts.ts, beside the results), and what the harness recorded by type
 * (a HarnessError raised, the check's end seen, results per clause); never from the text of a message.
 */
export function readPlaywrightResults(file: string): CheckResult[] {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  const facts = readFacts(path.dirname(file));
  const out: CheckResult[] = [];
  const walk = (suite: any, titles: string[]) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const tags: string[] = [...(spec.tags ?? []), ...(t.tags ?? [])].map((x: string) => x.replace(/^@/, ''));
        const annotated: string[] = (t.annotations ?? []).filter((a: any) => a.type === 'clause').map((a: any) => a.description);
        const last = t.results?.[t.results.length - 1];
        const annotations: Array<{ type: string; description?: string }> = [...(t.annotations ?? []), ...(last?.annotations ?? [])];
        // Playwright versions differ in where run-time annotations land (the test's or its last result's): each counted once.
        const said = (type: string) => [...new Set(annotations.filter((a) => a.type === type).map((a) => String(a.description ?? '')))];
        const skip = annotations.find((a) => a.type === 'skip');
        const failure = String(last?.error?.message ?? last?.errors?.[0]?.message ?? 'failed').replace(/\u001b\[[0-9;]*m/g, '');
        const title = [...titles, spec.title].filter(Boolean).join(' › ');
        const { project, file } = checkSource(spec.file ?? suite.file, t.projectName);
        const ended = said(ANNOTATION.ended)[0];
        // The actual status of the last result decides (`ces selftest` and a check failing only soft clauses mark it expected
        // to fail, and it still failed).
        const status = (last?.status ?? (t.status === 'skipped' ? 'skipped' : 'failed')) as 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
        const outcome: Outcome = classifyOutcome({
          status, ended: ended !== undefined, harness: said(ANNOTATION.harness).length > 0,
          hookFailed: facts.get(factKey(t.projectName ?? '', spec.file ?? suite.file ?? '', title))?.hookFailed === true,
          notJudged: said(ANNOTATION.notJudged).length > 0 || String(skip?.description ?? '').startsWith(NOT_JUDGED_PREFIX),
        });
        const harnessReason = said(ANNOTATION.harness)[0];
        const reason = outcome === 'harness-error' ? (harnessReason ? `${harnessReason}${failure !== 'failed' && !failure.includes(harnessReason) ? `\n${failure}` : ''}` : !ended && status !== 'passed' ? `the check never ended in the harness's sight (its worker exited or the run was interrupted): ${failure}` : failure)
          : outcome === 'failed' ? failure
          : outcome === 'skipped' || outcome === 'not-judged' ? (said(ANNOTATION.notJudged)[0] ?? String(skip?.description ?? '').replace(NOT_JUDGED_PREFIX, '')) || undefined : undefined;
        // Only a failed check's: a passed one may have met a refusal it expected.
        const unanswered = outcome === 'failed' ? unansweredOf(annotations, status, last?.duration ?? 0) : undefined;
        const warnings = said(ANNOTATION.warn);
        const notes = said(ANNOTATION.note);
        const reproductions = said(ANNOTATION.reproduction);
        // The records of one list only (a Playwright version may list run-time annotations on the test and on its result both).
        const recordsIn = (list: any[] | undefined) => (list ?? []).filter((a) => a.type === ANNOTATION.clause).map((a) => String(a.description ?? ''));
        const clauseResults = clauseResultsOf(recordsIn(last?.annotations).length ? recordsIn(last?.annotations) : recordsIn(t.annotations));
        // A clause judged under() in a check is one of its clauses, named or not (the REST answers' OpenAPI clause, a set-up step's).
        const clauses = [...new Set([...annotated, ...tags, ...Object.keys(clauseResults ?? {})])];
        let failureFacts: CheckResult['failure'];
        try { failureFacts = ended ? JSON.parse(ended) : undefined; } catch { failureFacts = undefined; }
        out.push({
          title, file, project, clauses, outcome, reason, durationMs: last?.duration ?? 0, anchor: checkAnchor({ project, file, title }),
          ...(warnings.length ? { warnings } : {}), ...(notes.length ? { notes } : {}), ...(reproductions.length ? { reproductions } : {}),
          ...(clauseResults ? { clauseResults } : {}), ...(failureFacts ? { failure: failureFacts } : {}),
          ...(said('deviation').length ? { deviation: said('deviation')[0] } : {}),
          ...(said('alternatives').length ? { alternatives: said('alternatives')[0]!.split(',') } : {}), runProject: t.projectName,
          ...(unanswered ? { unanswered } : {}),
        });
      }
    }
    for (const s of suite.suites ?? []) walk(s, [...titles, s.title && !/\.[jt]s$/.test(s.title) ? s.title : ''].filter(Boolean));
  };
  for (const s of report.suites ?? []) walk(s, []);
  return out;
}

/**
 * The reasons behind a check's verdict, one per line of a report: each clause's own failures (`CLAUSE: reason`), the check's
 * unattributed failure, or its skip, harness or WARN/NOTE reasons. The same lines in the terminal, JUnit, Allure and evidence.
 */
export function checkReasons(c: CheckResult): string[] {
  const own = Object.entries(c.clauseResults ?? {}).filter(([, r]) => r.failed.length).map(([id, r]) => `${id}: ${r.failed.join('; ')}`);
  const unattributed = c.outcome === 'failed' && (!c.failure || c.failure.unattributed > 0);
  if (c.outcome === 'passed') return [...own, ...(c.warnings ?? []), ...(c.notes ?? [])];
  if (c.outcome === 'failed') return [...own, ...(unattributed && c.reason ? [c.reason] : []), ...(c.warnings ?? []), ...(c.notes ?? [])];
  // A clause's failure recorded before the check ended otherwise (NOT JUDGED, a harness error) stands, and is said.
  return [...own, ...(c.reason ? [c.reason] : [])];
}

/** Per clause: the strongest verdict its checks give it (lib/verdicts.ts); `not-run` when no check of it ran. */
export function clauseVerdicts(checks: CheckResult[], opts: { reference: boolean }, catalogue: Clause[] = loadClauses()): ClauseVerdict[] {
  return catalogue.filter((c) => !c.retired).map((clause) => {
    const mine = checks.filter((k) => k.clauses.includes(clause.id));
    return { clause, verdict: strongest(mine.map((k) => verdictFor(k, clause.severity, opts.reference, clause.id))), checks: mine };
  });
}

/** The verdict of each check as a whole (its strongest clause verdict; a failed check naming no clause is a harness error). */
export function checkVerdicts(checks: CheckResult[], opts: { reference: boolean }, catalogue: Clause[] = loadClauses()): Verdict[] {
  const byId = new Map(catalogue.map((c) => [c.id, c]));
  return checks.map((k) => checkVerdict(k, (id) => byId.get(id)?.severity, opts.reference));
}

/** Exit code of a run (lib/verdicts.ts runVerdict): 2 on a harness error, 1 on a FAIL (or a WARN with `strict`), else 0. */
export function exitCodeOf(checks: CheckResult[], opts: { reference: boolean; strict?: boolean }, catalogue: Clause[] = loadClauses()): 0 | 1 | 2 {
  return runVerdict(checkVerdicts(checks, opts, catalogue), opts).code;
}

/**
 * The suite of a check and its file within the suite: the first folder of its spec file under suites/ (a Playwright project of
 * suites/playwright.config.ts runs files of several suites); a file without a folder keeps its project's name.
 */
export function checkSource(file: string, project: string): { project: string; file: string } {
  const m = /^([a-z0-9-]+)\/(.+)$/.exec(specPath(file ?? ''));
  return m ? { project: m[1]!, file: m[2]! } : { project, file };
}

/** Anchor of a check in evidence.html: readable slug of the title plus a hash of project, file and title (titles repeat across projects). */
export function checkAnchor(c: { project?: string; file?: string; title: string }): string {
  const slug = c.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48);
  const hash = crypto.createHash('sha1').update(`${c.project ?? ''}\u0000${c.file ?? ''}\u0000${c.title}`).digest('hex').slice(0, 8);
  return `check-${slug}-${hash}`;
}

export interface EvidenceAttachment {
  name: string;
  contentType: string;
  /** Text of a textual attachment (decoded from the results file or read from its path). */
  text?: string;
  /** Absolute path of a file attachment (screenshots, error context). */
  path?: string;
}
export interface CheckEvidence extends CheckResult { anchor: string; attachments: EvidenceAttachment[]; startTime?: string }

const TEXTUAL = /^(application\/(json|xml|[\w.+-]*\+json|[\w.+-]*\+xml)|text\/.*|image\/svg\+xml)(;.*)?$/;

/** The checks of a Playwright JSON results file with their attachments in the order they were made (one per HTTP call, pictures). */
export function readPlaywrightEvidence(file: string): CheckEvidence[] {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  const checks = readPlaywrightResults(file);
  const out: CheckEvidence[] = [];
  let i = 0;
  // Same traversal order as readPlaywrightResults, so the i-th test is the i-th check.
  const walk = (suite: any) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const last = t.results?.[t.results.length - 1];
        const check = checks[i++]!;
        const attachments: EvidenceAttachment[] = (last?.attachments ?? []).map((a: any) => {
          const att: EvidenceAttachment = { name: String(a.name ?? ''), contentType: String(a.contentType ?? 'application/octet-stream') };
          if (a.path) att.path = String(a.path);
          if (TEXTUAL.test(att.contentType)) {
            if (typeof a.body === 'string') att.text = Buffer.from(a.body, 'base64').toString('utf8');
            else if (a.path && fs.existsSync(a.path) && fs.statSync(a.path).size < 2_000_000) att.text = fs.readFileSync(a.path, 'utf8');
          }
          return att;
        });
        out.push({ ...check, anchor: check.anchor ?? checkAnchor(check), attachments, startTime: last?.startTime });
      }
    }
    for (const s of suite.suites ?? []) walk(s);
  };
  for (const s of report.suites ?? []) walk(s);
  return out;
}

// ---- Secrets never stay in a run folder ----------------------------------------------------------------------------

const TEXT_FILE = /\.(json|xml|html?|txt|md|csv|log|svg|ya?ml|dat|js|css|tsv)$/i;

interface ZipEntry { name: string; data: Buffer }

/** Reads a zip archive (stored or deflated entries), enough for Playwright's embedded report data. */
export function readZip(buf: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) throw new Error('not a zip archive');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad zip central directory');
    const method = buf.readUInt16LE(p + 10);
    const csize = buf.readUInt32LE(p + 20);
    const nlen = buf.readUInt16LE(p + 28);
    const elen = buf.readUInt16LE(p + 30);
    const clen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nlen).toString('utf8');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + csize);
    out.push({ name, data: method === 0 ? Buffer.from(raw) : zlib.inflateRawSync(raw) });
    p += 46 + nlen + elen + clen;
  }
  return out;
}

/** Writes a zip archive with deflated entries. */
export function writeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const comp = zlib.deflateRawSync(e.data);
    const crc = zlib.crc32(e.data);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0); h.writeUInt16LE(20, 4); h.writeUInt16LE(0x0800, 6); h.writeUInt16LE(8, 8);
    h.writeUInt16LE(0, 10); h.writeUInt16LE(0x21, 12); h.writeUInt32LE(crc, 14); h.writeUInt32LE(comp.length, 18);
    h.writeUInt32LE(e.data.length, 22); h.writeUInt16LE(name.length, 26); h.writeUInt16LE(0, 28);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0); c.writeUInt16LE(20, 4); c.writeUInt16LE(20, 6); c.writeUInt16LE(0x0800, 8); c.writeUInt16LE(8, 10);
    c.writeUInt16LE(0, 12); c.writeUInt16LE(0x21, 14); c.writeUInt32LE(crc, 16); c.writeUInt32LE(comp.length, 20); c.writeUInt32LE(e.data.length, 24);
    c.writeUInt16LE(name.length, 28); c.writeUInt32LE(offset, 42);
    locals.push(h, name, comp);
    centrals.push(c, name);
    offset += 30 + name.length + comp.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const PW_ZIP = /(<template id="playwrightReportBase64">data:application\/zip;base64,)([A-Za-z0-9+/=]+)(<\/template>)/;

/** Files under `dir` (or `dir` itself, a file), but those named in `skip` (files or sub-folders of `dir`) and what they hold. */
function filesUnder(dir: string, skip: string[] = []): string[] {
  if (!fs.existsSync(dir)) return [];
  if (fs.statSync(dir).isFile()) return [dir];
  const skippedFiles = new Set(skip.map((s) => path.join(dir, s)));
  const skipped = skip.map((s) => path.join(dir, s) + path.sep);
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => path.join((d as { parentPath?: string; path?: string }).parentPath ?? (d as { path?: string }).path ?? dir, d.name))
    .filter((f) => !skippedFiles.has(f) && !skipped.some((s) => f.startsWith(s)));
}

/** Names of fields whose values are secrets whatever they are (a signing secret a check invented is not registered anywhere). */
const SECRET_FIELDS = 'secret|password|passwd|api_key|apiKey|sim_token|simToken|control_token|controlToken|client_secret|clientSecret|access_token|accessToken|refresh_token|refreshToken|webhook_secret|webhookSecret|signing_secret|signingSecret';
// `"secret": "v"` in JSON, also inside JSON-in-a-string (`\"secret\":\"v\"`), and `password=v` in form bodies and URLs.
const SECRET_JSON = new RegExp(String.raw`(\\*"(?:${SECRET_FIELDS})\\*"\s*:\s*\\*")([^"\\]{4,})(?=\\*")`, 'g');
const SECRET_FORM = new RegExp(String.raw`(\b(?:${SECRET_FIELDS})=)([^&\s"'\\]{4,})`, 'g');

/** Known secrets (lib/mask.ts) plus the values of secret-named fields. */
export function maskAll(text: string): string {
  return mask(text).replace(SECRET_JSON, '$1***').replace(SECRET_FORM, '$1***');
}

/** Playwright's JSON results keep in-memory attachments base64-encoded (`body`): each textual one is decoded, masked, re-encoded. */
function maskAttachmentBodies(json: string): string {
  let data: unknown;
  try { data = JSON.parse(json); } catch { return json; }
  let changed = false;
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) { o.forEach(walk); return; }
    if (!o || typeof o !== 'object') return;
    const rec = o as Record<string, unknown>;
    if (typeof rec.body === 'string' && typeof rec.contentType === 'string' && TEXTUAL.test(rec.contentType)) {
      const plain = Buffer.from(rec.body, 'base64').toString('utf8');
      const masked = maskAll(plain);
      if (masked !== plain) { rec.body = Buffer.from(masked, 'utf8').toString('base64'); changed = true; }
    }
    Object.values(rec).forEach(walk);
  };
  walk(data);
  return changed ? JSON.stringify(data, null, 2) : json;
}

/**
 * Masks every known secret (lib/mask.ts) in every text file under a folder, including the zipped data Playwright's
 * HTML report embeds; returns the files it changed. Writers mask what they write; this is the net under them
 * (assertion messages, error-context snapshots, the embedded target file).
 */
export function scrubDir(dir: string, opts: { skip?: string[] } = {}): string[] {
  // `dir` may also be a single file. `skip`: files and sub-folders still being written by another process (scrubbed once
  // written), or masked already since they were written.
  const changed: string[] = [];
  for (const f of filesUnder(dir, opts.skip)) {
    if (!TEXT_FILE.test(f) || fs.statSync(f).size > 50_000_000) continue;
    const text = fs.readFileSync(f, 'utf8');
    let out = maskAll(text);
    if (f.endsWith('.json') && out.includes('"contentType"')) out = maskAttachmentBodies(out);
    const m = PW_ZIP.exec(out);
    if (m) {
      const entries = readZip(Buffer.from(m[2]!, 'base64'));
      let zipChanged = false;
      const masked = entries.map((e) => {
        const t = e.data.toString('utf8');
        const mt = maskAll(t);
        if (mt !== t) zipChanged = true;
        return { name: e.name, data: mt !== t ? Buffer.from(mt, 'utf8') : e.data };
      });
      if (zipChanged) out = out.replace(PW_ZIP, (_all, a: string, _b: string, c: string) => a + writeZip(masked).toString('base64') + c);
    }
    if (out !== text) { fs.writeFileSync(f, out); changed.push(f); }
  }
  return changed;
}

const isBase64Byte = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;

/**
 * Runs of 40 or more base64 characters (with their `=` padding), found by one linear scan: a regular expression over a
 * many-megabyte report (a zipped trace inlined by Allure) overflowed the regexp engine's stack.
 */
function* base64Runs(buf: Buffer): Generator<string> {
  let start = -1;
  for (let i = 0; i <= buf.length; i++) {
    if (i < buf.length && isBase64Byte(buf[i]!)) { if (start < 0) start = i; continue; }
    if (start >= 0 && i - start >= 40) {
      let end = i;
      while (end < buf.length && end - i < 2 && buf[end] === 61) end++;
      yield buf.toString('latin1', start, end);
    }
    start = -1;
  }
}

/** Every place a secret still appears under a folder: plain text, base64 blobs (Allure's single file) and zip entries inside them. */
export function findLeaks(dir: string, secrets: string[], opts: { skip?: string[] } = {}): Array<{ file: string; secret: string; where: string }> {
  const wanted = secrets.filter((s) => s && s.length >= 4);
  const leaks: Array<{ file: string; secret: string; where: string }> = [];
  const look = (file: string, where: string, buf: Buffer) => {
    for (const s of wanted) if (buf.includes(s)) leaks.push({ file, secret: s, where });
  };
  for (const f of filesUnder(dir, opts.skip)) {
    const buf = fs.readFileSync(f);
    look(f, 'text', buf);
    for (const run of base64Runs(buf)) {
      const bytes = Buffer.from(run, 'base64');
      look(f, 'base64', bytes);
      if (bytes.length > 22 && bytes.readUInt32LE(0) === 0x04034b50) {
        try { for (const e of readZip(bytes)) look(f, `zip:${e.name}`, e.data); } catch { /* not a whole archive */ }
      }
    }
  }
  return leaks;
}

/** The sum of a numeric annotation over every check of a Playwright JSON results file (e.g. REST answers judged by the OpenAPI document). */
export function annotationTotal(file: string, type: string): number {
  if (!fs.existsSync(file)) return 0;
  let total = 0;
  const walk = (suite: any) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests ?? []) {
      const last = t.results?.[t.results.length - 1];
      // Playwright versions differ in where run-time annotations land (the test's or its last result's): counted once.
      const mine = (list: any[] | undefined) => (list ?? []).filter((a: any) => a.type === type);
      const said = mine(last?.annotations).length ? mine(last?.annotations) : mine(t.annotations);
      for (const a of said) total += Number(a.description) || 0;
    }
    for (const s of suite.suites ?? []) walk(s);
  };
  for (const s of JSON.parse(fs.readFileSync(file, 'utf8')).suites ?? []) walk(s);
  return total;
}
