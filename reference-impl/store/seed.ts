// Deterministic seed data built with faker (`--seed`, default 42): two clients with their keys, projects, people and six months of history.
import type { Faker } from '@faker-js/faker';
import { hashPassword, seededPassword } from './credentials.js';
import { ROLES, LANGUAGE_ADMIN_OPERATOR, LANGUAGE_ADMIN_WEBSITE } from './people-values.js';
import type { Db } from './db.js';
import { CHANNELS } from '../channels.js';
import { CALL_MEETING_STATES } from '../rest/activity/callmeeting-states.js';

/** Channels of the seeded history: every channel but mobile_app, which only conversations started through the simulation API use. */
const SEEDED_CHANNELS = CHANNELS.filter((c) => c !== 'mobile_app');
const DAY = 86_400_000;

export interface SeedPlan { clients: Array<{ name: string; websites: number; operators: number; bots: number; conversations: number }> }
export const DEFAULT_PLAN: SeedPlan = {
  clients: [
    { name: 'Acme Retail', websites: 2, operators: 18, bots: 2, conversations: 420 },
    { name: 'Globex Travel', websites: 1, operators: 8, bots: 1, conversations: 160 },
  ],
};

/**
 * A faker of its own for each seeding (English, as `new Faker({ locale: [en, base] })`, same rows for a seed), built from the
 * English-only entry: the package's main entry loads every locale, about 0.3 s of CPU at each start of the service.
 */
const newFaker = (english: Faker): Faker => new (english.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker)({ locale: english.rawDefinitions });

/**
 * What the seeded rows depend on besides the seed value, the plan and the day: this module's code (by its text) and the constants
 * it reads. store/seed-snapshot.ts keys its snapshots by it.
 */
export function seedInputs(): unknown[] {
  return [seed.toString(), newFaker.toString(), hashPassword.toString(), seededPassword.toString(), ROLES, LANGUAGE_ADMIN_OPERATOR, LANGUAGE_ADMIN_WEBSITE, SEEDED_CHANNELS, CALL_MEETING_STATES, DAY];
}

/** Fills an empty store. Same seed and same day (UTC) give the same rows. */
export async function seed(db: Db, seedValue = 42, plan: SeedPlan = DEFAULT_PLAN, now = Date.now()): Promise<void> {
  // Imported when seeding, not with this module: faker's English data is ~0.2 s of CPU to load, and a service restarted on its
  // own database (already seeded) never needs it (a dynamic import stays one in the bundles too).
  const { faker: english } = await import('@faker-js/faker/locale/en');
  const f = newFaker(english);
  f.seed(seedValue);
  const today = Math.floor(now / DAY) * DAY;
  const ins = (table: string, row: Record<string, unknown>) => {
    const cols = Object.keys(row);
    const r = db.prepare(`INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(',')}) VALUES (${cols.map(() => '?').join(',')})`)
      .run(...cols.map((c) => { const v = row[c]; return typeof v === 'boolean' ? Number(v) : Array.isArray(v) ? JSON.stringify(v) : v; }));
    return Number(r.lastInsertRowid);
  };
  const pastMs = (days: number) => today - f.number.int({ min: 0, max: days * DAY });

  db.transaction(() => {
    plan.clients.forEach((cp, ci) => {
      const clientId = ins('clients', {
        id: 1000 + ci * 1000 + 1, lang: ci === 0 ? 'en' : 'fr', premium_enabled: ci === 0,
        api_key: f.string.hexadecimal({ length: 32, casing: 'lower', prefix: '' }), name: cp.name,
      });
      const websiteIds: number[] = [];
      for (let w = 0; w < cp.websites; w++) {
        websiteIds.push(ins('websites', {
          client_id: clientId, url: f.internet.url(), label: f.company.name(), currency: f.helpers.arrayElement(['EUR', 'USD', 'GBP']),
          language_admin: LANGUAGE_ADMIN_WEBSITE[(ci * 3 + w) % LANGUAGE_ADMIN_WEBSITE.length], timezone: f.helpers.arrayElement(['Europe/Paris', 'UTC', 'America/New_York']),
        }));
      }
      // Groups and skills in two levels, so parent filters have something to find.
      const groupIds: number[] = [];
      for (let g = 0; g < 5; g++) {
        groupIds.push(ins('groups', { client_id: clientId, name: `${f.commerce.department()} ${g + 1}`, created_at: pastMs(400), parent_id: g < 2 ? null : groupIds[g % 2] }));
      }
      const skillIds: number[] = [];
      for (let s = 0; s < 5; s++) {
        skillIds.push(ins('skills', { client_id: clientId, name: `${f.hacker.noun()} ${s + 1}`, order: s + 1, created_at: pastMs(400), parent_id: s < 2 ? null : skillIds[s % 2] }));
      }
      const operatorIds: number[] = [];
      const humanIds: number[] = [];
      for (let o = 0; o < cp.operators + cp.bots; o++) {
        const bot = o >= cp.operators;
        const first = f.person.firstName();
        const last = f.person.lastName();
        const roles = bot ? ['operator'] : o < ROLES.length ? [ROLES[o]!] : f.helpers.arrayElements([...ROLES], { min: 1, max: 2 });
        const langs = bot ? [f.helpers.arrayElement(['en', 'fr'])] : f.helpers.arrayElements(['en', 'fr', 'de', 'es', 'it'], { min: 1, max: 3 });
        const created = pastMs(400);
        const id = ins('operators', {
          client_id: clientId, type: bot ? 'bot' : 'human', name: bot ? `Bot ${o - cp.operators + 1}` : last, first_name: bot ? 'Bot' : first,
          pseudo: bot ? `Assistant ${o - cp.operators + 1}` : first, email: f.internet.email({ firstName: first, lastName: last, provider: `client${ci + 1}.example` }).toLowerCase(),
          external_id: o % 3 === 0 ? `ext-${clientId}-${o}` : null, roles,
          chat_enabled: true, call_enabled: !bot && o % 2 === 0, video_enabled: !bot && o % 3 === 0, chat_max_number: bot ? 100 : f.number.int({ min: 1, max: 5 }),
          chat_and_call: !bot && o % 4 === 0, chat_priority: o % 2 ? 10 : 0, call_priority: 0, video_priority: o % 5 === 0 ? 10 : 0,
          language_list: langs, language_admin: LANGUAGE_ADMIN_OPERATOR[o % 4], group_id: bot ? null : groupIds[o % groupIds.length],
          website_list: o % 4 === 3 ? websiteIds.slice(0, 1) : websiteIds, skill_list: bot ? [] : f.helpers.arrayElements(skillIds, { min: 0, max: 2 }),
          sso_key: f.string.alphanumeric(24), created_at: created, updated_at: created,
        });
        operatorIds.push(id);
        if (!bot) humanIds.push(id);
        ins('operator_profiles', { user_id: id, status: bot ? 'Always here' : f.lorem.sentence(4), description: f.lorem.sentence(), social_a: f.internet.username(), social_b: f.internet.username(), city: f.location.city(), country: f.location.countryCode() });
        // Most operators have logged in once; some are available now, some offline; a few never logged in.
        if (o % 7 !== 6) {
          const connected = bot || o % 3 !== 2;
          ins('operator_live', { operator_id: id, connected, chat_available: connected && o % 2 === 0, call_available: connected && o % 4 === 0, video_available: connected && o % 6 === 0 });
        }
        // Presence periods over the last 6 months feed the presence/occupation/production indicators.
        for (let p = 0; p < 12; p++) {
          const start = pastMs(180);
          ins('operator_presence', { operator_id: id, client_id: clientId, state: f.helpers.arrayElement(['available', 'partial', 'full', 'unavailable']), start_at: start, end_at: start + f.number.int({ min: 10, max: 240 }) * 60_000 });
        }
      }
      // The client's login (an admin); a second user per client for isolation checks.
      ins('users', { client_id: clientId, email: `admin@client${ci + 1}.example`, password_hash: hashPassword(seededPassword(seedValue, clientId)), operator_id: humanIds[3] ?? humanIds[0] });
      ins('users', { client_id: clientId, email: `agent@client${ci + 1}.example`, password_hash: hashPassword(seededPassword(seedValue, clientId) + '-agent'), operator_id: humanIds[0] });

      const visitorUids: string[] = [];
      for (let v = 0; v < 40; v++) {
        const first = f.person.firstName(); const last = f.person.lastName();
        const uid = f.string.alphanumeric({ length: 20, casing: 'lower' });
        visitorUids.push(uid);
        ins('visitors', {
          client_id: clientId, unique_id: uid, external_id: v % 2 ? `crm-${clientId}-${v}` : null, lastname: last, firstname: first,
          address: f.location.streetAddress(), city: f.location.city(), zip: f.location.zipCode(), country: f.location.countryCode(),
          phone: f.phone.number(), email: f.internet.email({ firstName: first, lastName: last }).toLowerCase(), browser: f.internet.userAgent(),
          website_id: v % 5 === 0 ? websiteIds : [websiteIds[v % websiteIds.length]], created_at: pastMs(200),
        });
      }
      const ruleIds = websiteIds.flatMap((w) => [1, 2].map((r) => ins('rules', { client_id: clientId, website_id: w, name: `Rule ${w}-${r}` })));
      for (let d = 0; d < 300; d++) {
        const rule = f.helpers.arrayElement(ruleIds);
        const w = (db.prepare('SELECT website_id FROM rules WHERE id = ?').get(rule) as { website_id: number }).website_id;
        const triggered = f.datatype.boolean(0.6);
        ins('rule_displays', { rule_id: rule, client_id: clientId, website_id: w, channel: f.helpers.arrayElement(['chat', 'call', 'video']), at: pastMs(180), triggered, contacted: triggered && f.datatype.boolean(0.3) });
      }
      const tagIds: number[] = [];
      for (let t = 0; t < 6; t++) tagIds.push(ins('tags', { client_id: clientId, name: `${f.word.adjective()}-${t}`, website_id: t % 3 === 0 ? websiteIds : [websiteIds[t % websiteIds.length]] }));

      const conversationIds: Array<{ id: number; operator: number | null; website: number; uid: string; created: number }> = [];
      for (let c = 0; c < cp.conversations; c++) {
        const channel = SEEDED_CHANNELS[c % SEEDED_CHANNELS.length]!;
        const created = pastMs(182);
        const answered = c % 6 !== 5;
        const operator = answered ? f.helpers.arrayElement(humanIds) : null;
        const uid = f.helpers.arrayElement(visitorUids);
        const website = f.helpers.arrayElement(websiteIds);
        let t = created;
        const history: unknown[][] = [];
        const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
        const msgs = f.number.int({ min: 2, max: 7 });
        for (let m = 0; m < msgs; m++) {
          t += f.number.int({ min: 5, max: 180 }) * 1000;
          if (m % 2 === 0) history.push([2, stamp(t), f.lorem.sentence(), t]);
          else if (answered) history.push([1, stamp(t), f.lorem.sentence(), t]);
          if (m === 1 && c % 4 === 0) history.push([5, stamp(t), f.internet.url()]);
          if (m === 2 && c % 5 === 0) history.push([6, stamp(t), `${f.internet.url()}/card.png`]);
          if (m === 3 && c % 7 === 0) history.push([7, stamp(t), `${f.internet.url()}/upload.pdf`]);
        }
        t += 30_000;
        history.push([3, stamp(t), 'OPERATOR_CHAT_CLOSE']);
        const waiting = c % 3 === 0 && channel !== 'call';
        const id = ins('conversations', {
          uuid: f.string.uuid(), client_id: clientId, website_id: website, channel, visitor_uid: uid,
          visitor_external_id: channel.startsWith('social') || channel === 'sms' ? null : `crm-${clientId}-${c % 40}`,
          operator_id: operator, operator_ids: operator ? [operator] : [], skill_id: c % 3 ? f.helpers.arrayElement(skillIds) : null,
          rule_id: c % 2 ? f.helpers.arrayElement(ruleIds) : null, page_type: f.helpers.arrayElement(['home', 'product', 'cart', 'checkout']),
          contact_type: c % 9 === 0 ? 'operator' : 'visitor', operator_answer: answered, operator_closed: answered && c % 2 === 0,
          waitinglist: waiting, waiting_ms: waiting ? f.number.int({ min: 5, max: 300 }) * 1000 : 0, waiting_aborted: waiting && c % 4 === 0,
          created_at: created, closed_at: t, last_activity_at: t, history, tag_list: c % 3 === 0 ? f.helpers.arrayElements(tagIds, { min: 1, max: 2 }) : [],
        });
        conversationIds.push({ id, operator, website, uid, created });
      }
      for (let x = 0; x < 120; x++) {
        const linked = x % 3 !== 0 ? f.helpers.arrayElement(conversationIds) : null;
        ins('transactions', {
          client_id: clientId, external_id: `order-${clientId}-${x}`, visitor_uid: linked?.uid ?? f.helpers.arrayElement(visitorUids), visitor_email: f.internet.email().toLowerCase(),
          amount: Number(f.commerce.price({ min: 5, max: 900 })), created_at: linked ? linked.created + f.number.int({ min: 1, max: 3600 }) * 1000 : pastMs(180),
          website_id: linked?.website ?? f.helpers.arrayElement(websiteIds), operator_id: linked?.operator ?? null, conversation_id: linked?.id ?? null,
        });
      }
      const answeredConvs = conversationIds.filter((c) => c.operator);
      for (let s = 0; s < 80; s++) {
        const conv = answeredConvs[s % answeredConvs.length]!;
        ins('satisfactions', {
          client_id: clientId, note_welcome: f.number.int({ min: 0, max: 100 }), note_resolution: f.number.int({ min: 0, max: 100 }), node_delay: f.number.int({ min: 0, max: 100 }),
          comment: f.lorem.sentence(), created_at: conv.created + 600_000, website_id: conv.website, operator_id: conv.operator, conversation_id: conv.id,
        });
      }
      CALL_MEETING_STATES.forEach((status, i) => {
        for (let k = 0; k < 3; k++) {
          ins('callmeetings', {
            client_id: clientId, phone_number: f.phone.number({ style: 'international' }), visitor_uid: f.helpers.arrayElement(visitorUids), status,
            start_at: status === 'pending' ? today + (i + k + 1) * DAY : pastMs(120), website_id: f.helpers.arrayElement(websiteIds),
            targeting_rule_id: String(f.helpers.arrayElement(ruleIds)), skill_id: String(f.helpers.arrayElement(skillIds)),
          });
        }
      });
    });
  })();
}
