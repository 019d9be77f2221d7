// An OpenAPI 3.1 document read for fuzzing: its operations, parameters, bodies and documented answers, with ajv validators by JSON pointer.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { formatErrors } from '../lib/schemas.js';
import type { Schema } from './values.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
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
  private ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  private validators = new Map<string, ValidateFunction>();
  constructor(public doc: any) {
    if (typeof doc !== 'object' || !doc || typeof doc.paths !== 'object') throw new Error('not an OpenAPI document (no "paths" object)');
    addFormats(this.ajv);
    // The service's own date spellings (fixtures/schemas): `YYYY-MM-DD HH:MM:SS` and `<timestamp>[<zone_id>]`.
    this.ajv.addFormat('rest-date', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    this.ajv.addFormat('zoned-date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\[[A-Za-z0-9_/+-]+\]$/);
    this.ajv.addSchema({ ...doc, $id: 'oas:' }, 'oas:');
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
}
