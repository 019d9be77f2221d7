// An OpenAPI 3.1 document read by `ces fuzz` and the suites: its operations, parameters, bodies and documented answers, with ajv validators by JSON pointer.
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { ajvClass, formatErrors } from './schemas.js';
import { SCHEMA_FORMATS } from './schema-formats.js';

type Schema = Record<string, any>;

const require = createRequire(import.meta.url);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface Parameter { name: string; in: 'query' | 'path' | 'header' | 'cookie'; required: boolean; schema: Schema; pointer: string; style?: string; explode?: boolean; example?: unknown }
export interface Operation {
  /** `GET /operator/{id}`: the name the report uses. */
  id: string;
  method: string;
  path: string;
  pointer: string;
  parameters: Parameter[];
  body?: { required: boolean; types: Array<{ type: string; pointer: string; example?: unknown }> };
  /** Documented status codes (`200`, `4XX`, `default`). */
  statuses: string[];
  /** Whether the operation needs credentials (the document's `security`, else the root's). */
  secured: boolean;
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class OpenApiDocument {
  private ajvOfDoc: Ajv2020 | undefined;
  private validators = new Map<string, ValidateFunction>();
  private ops: Operation[] | undefined;
  constructor(public doc: any) {
    if (typeof doc !== 'object' || !doc || typeof doc.paths !== 'object') throw new Error('not an OpenAPI document (no "paths" object)');
  }

  /**
   * The document's ajv, made at the first validation: every Playwright worker of a reference target holds a document, and most
   * never validate against it (loading ajv is about 60 ms of CPU). ajv-formats' formats, as a document of others means them, and
   * the service's own date spellings (`YYYY-MM-DD HH:MM:SS`, `<timestamp>[<zone_id>]`).
   */
  private get ajv(): Ajv2020 {
    if (!this.ajvOfDoc) {
      const Ajv = ajvClass();
      // ajv-formats is CommonJS: its function may sit on `default`.
      const formats = require('ajv-formats') as { default?: unknown };
      const addFormats = (formats.default ?? formats) as (a: Ajv2020) => Ajv2020;
      const ajv = new Ajv({ strict: false, validateFormats: true });
      addFormats(ajv);
      for (const name of ['rest-date', 'zoned-date-time']) ajv.addFormat(name, SCHEMA_FORMATS[name]!);
      ajv.addSchema({ ...this.doc, $id: 'oas:' }, 'oas:');
      this.ajvOfDoc = ajv;
    }
    return this.ajvOfDoc;
  }

  /** The node at a JSON pointer (`#/components/schemas/x` or `/paths/...`). */
  at(pointer: string): any {
    let node = this.doc;
    for (const raw of pointer.replace(/^#/, '').split('/').slice(1)) {
      node = node?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node;
  }

  /** Follows a `$ref` object (several hops), returning the node and its pointer. */
  follow(node: any, pointer: string): { node: any; pointer: string } {
    for (let i = 0; i < 20 && node && typeof node.$ref === 'string' && node.$ref.startsWith('#'); i++) {
      pointer = node.$ref.slice(1);
      node = this.at(pointer);
    }
    return { node, pointer };
  }

  /** Validates data against the schema at a pointer; null when valid, else what is wrong. */
  validate(pointer: string, data: unknown): string | null {
    let v = this.validators.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `oas:#${pointer}` });
      this.validators.set(pointer, v);
    }
    return v(data) ? null : formatErrors(v.errors);
  }

  /**
   * Compiles every validator the operations need (parameters, bodies, documented answers) now, rather than on first use: a
   * compilation takes up to ~200 ms of the event loop, which a run measuring blocks must not count.
   */
  compileAll(): number {
    const pointers = new Set<string>();
    for (const op of this.operations()) {
      for (const p of op.parameters) pointers.add(p.pointer);
      for (const t of op.body?.types ?? []) pointers.add(t.pointer);
      for (const s of op.statuses) { const a = this.answer(op, Number(s) || 0); if (a.schemaPointer) pointers.add(a.schemaPointer); }
    }
    for (const p of pointers) this.validate(p, null);
    return pointers.size;
  }

  servers(): string[] { return (this.doc.servers ?? []).map((s: { url: string }) => s.url).filter((u: unknown) => typeof u === 'string'); }
  securitySchemes(): Record<string, { type: string; in?: string; name?: string; scheme?: string }> { return this.doc.components?.securitySchemes ?? {}; }

  operations(): Operation[] {
    const out: Operation[] = [];
    for (const [path, item0] of Object.entries<any>(this.doc.paths)) {
      const itemPointer = `/paths/${esc(path)}`;
      const { node: item } = this.follow(item0, itemPointer);
      for (const m of METHODS) {
        const op = item?.[m];
        if (!op) continue;
        const pointer = `${itemPointer}/${m}`;
        const params = new Map<string, Parameter>();
        const collect = (list: any[] | undefined, base: string) => (list ?? []).forEach((p0, i) => {
          const { node: p, pointer: pp } = this.follow(p0, `${base}/parameters/${i}`);
          if (!p?.name) return;
          params.set(`${p.in}:${p.name}`, { name: p.name, in: p.in, required: !!p.required || p.in === 'path', schema: p.schema ?? {}, pointer: `${pp}/schema`, style: p.style, explode: p.explode, example: p.example });
        });
        collect(item.parameters, itemPointer);
        collect(op.parameters, pointer);
        let body: Operation['body'];
        if (op.requestBody) {
          const { node: rb, pointer: rp } = this.follow(op.requestBody, `${pointer}/requestBody`);
          body = { required: !!rb.required, types: Object.entries(rb.content ?? {}).map(([t, media]: [string, any]) => ({ type: t, pointer: `${rp}/content/${esc(t)}/schema`, example: media?.example })) };
        }
        const security = op.security ?? this.doc.security ?? [];
        out.push({
          id: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path, pointer, parameters: [...params.values()], body,
          statuses: Object.keys(op.responses ?? {}), secured: security.length > 0 && !security.some((s: object) => Object.keys(s).length === 0),
        });
      }
    }
    return out;
  }

  /** The documented answer for a status (exact, then `4XX`, then `default`): its JSON schema pointer, or why there is none. */
  answer(op: Operation, status: number): { documented: boolean; schemaPointer?: string; contentTypes: string[] } {
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.statuses.includes(k));
    if (!key) return { documented: false, contentTypes: [] };
    const { node, pointer } = this.follow(this.at(`${op.pointer}/responses/${key}`), `${op.pointer}/responses/${key}`);
    const content = node?.content ?? {};
    const json = Object.keys(content).find((t) => /json/i.test(t));
    return { documented: true, contentTypes: Object.keys(content), schemaPointer: json && content[json].schema ? `${pointer}/content/${esc(json)}/schema` : undefined };
  }

  /**
   * The operations of a request path (under a server base, query ignored): templates matched segment by segment, the most
   * literal segments winning (`/operator/live` before `/operator/{id}`); every method documented for that path.
   */
  operationsOf(path: string): Operation[] {
    this.ops ??= this.operations();
    const segments = path.split('?')[0]!.split('/').map((s) => { try { return decodeURIComponent(s); } catch { return s; } });
    let best: { score: number; path?: string } = { score: -1 };
    for (const template of new Set(this.ops.map((o) => o.path))) {
      const parts = template.split('/');
      const variable = (p: string) => /^\{[^}]+\}$/.test(p);
      if (parts.length !== segments.length || !parts.every((p, i) => (variable(p) ? segments[i] !== '' : p === segments[i]))) continue;
      const score = parts.filter((p) => !variable(p)).length;
      if (score > best.score) best = { score, path: template };
    }
    return this.ops.filter((o) => o.path === best.path);
  }

  /** The answer for a status that every operation states alike (the same response object), or undefined. */
  private commonAnswer(status: number): { schemaPointer?: string } | undefined {
    this.ops ??= this.operations();
    const answers = this.ops.map((o) => this.answer(o, status));
    if (!answers.length || !answers.every((a) => a.documented && a.schemaPointer === answers[0]!.schemaPointer)) return undefined;
    return answers[0];
  }

  /**
   * What is wrong with an answer by the document, or null when it conforms: the operation by method and path template, the
   * response by status, the JSON body by the response's schema. A documented path asked with another method must be 405 with
   * `Allow` (the document states 405 on the path's operations).
   */
  answerProblem(method: string, path: string, answer: { status: number; headers: Record<string, string>; json: unknown; text: string }): string | null {
    const ops = this.operationsOf(path);
    const shown = path.split('?')[0];
    if (!ops.length) {
      // A path the document lacks: only an answer every operation states (e.g. the refusal of a missing key) can be judged.
      const common = this.commonAnswer(answer.status);
      if (!common) return `${method} ${shown}: no path of the document matches, and ${answer.status} is not an answer every operation states`;
      if (!common.schemaPointer || answer.json === undefined) return common.schemaPointer ? `${method} ${shown} answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 120)}` : null;
      const error = this.validate(common.schemaPointer, answer.json);
      return error ? `${method} ${shown} (no path of the document) answered ${answer.status} with a body that does not match the schema every operation states for it (#${common.schemaPointer}): ${error.slice(0, 600)}` : null;
    }
    // HEAD is answered wherever GET is (RFC 9110 §9.3.2): judged as the GET operation, without a body.
    const own = ops.find((o) => o.method === method.toUpperCase()) ?? (method.toUpperCase() === 'HEAD' ? ops.find((o) => o.method === 'GET') : undefined);
    const op = own ?? ops[0]!;
    if (!own) {
      if (answer.status !== 405) return `${method} ${op.path}: the method is not documented for the path (${ops.map((o) => o.method).join(', ')}), so the answer must be 405, not ${answer.status}`;
      const allow = (answer.headers.allow ?? '').split(',').map((m) => m.trim().toUpperCase());
      const missing = ops.map((o) => o.method).filter((m) => !allow.includes(m));
      if (missing.length) return `${method} ${op.path} answered 405 with Allow "${answer.headers.allow ?? ''}", which lacks the documented ${missing.join(', ')}`;
    }
    const name = own ? op.id : `${method} ${op.path} (405 of ${op.id})`;
    const documented = this.answer(op, answer.status);
    if (!documented.documented) return `${name} answered ${answer.status}, a status the document does not state (documented: ${op.statuses.join(', ')})`;
    if (!documented.schemaPointer || method.toUpperCase() === 'HEAD') return null;
    if (answer.json === undefined) return `${name} answered ${answer.status} with a body that is not JSON (content-type ${answer.headers['content-type'] ?? 'none'}): ${answer.text.slice(0, 120)}`;
    const error = this.validate(documented.schemaPointer, answer.json);
    return error ? `${name} answered ${answer.status} with a body that does not match its schema (#${documented.schemaPointer}): ${error.slice(0, 600)}` : null;
  }
}
