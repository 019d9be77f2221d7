// Operator create, update and delete: answers, JSON and form bodies, validation of every field kind with fails naming the field.
import { test, expect, expectSchema, type Api } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { expectPayload, under } from '../verdicts.js';
import { ABSENT_ID, allItems, createOperator, expectFail, probeFields } from './people-helpers.js';

test('POST /operator creates an operator that GET then answers', clauses('REST-OP-05'), async ({ api }) => {
  const fields = probeFields({ pseudo: 'Probey', roles: ['expert', 'operator'], chat_max_number: 4, chat_priority: 10, language_list: ['fr', 'de'], language_admin: 'fr', call_enabled: true });
  const res = await api.rest({ method: 'POST', path: '/operator', json: fields });
  expect(res.json?.meta?.status, res.text).toBe('success');
  const got = await api.rest({ path: `/operator/${res.json.data.id}` });
  expectPayload('rest/operator.json', got.json.data, `operator ${res.json.data.id}`);
  for (const [k, v] of Object.entries(fields)) expect(got.json.data[k], k).toEqual(v);
  expect((await allItems(api, `/operator?filters[id]=${res.json.data.id}`)).length).toBe(1);
});

test('POST /operator answers 201 and the created operator', clauses('REST-OP-06'), async ({ api }) => {
  const fields = probeFields();
  const res = await api.rest({ method: 'POST', path: '/operator', json: fields });
  expect(res.status).toBe(201);
  expectSchema('rest/envelope.json', res.json);
  expectSchema('rest/operator.json', res.json.data);
  expect(res.json.data.email).toBe(fields.email);
  const got = await api.rest({ path: `/operator/${res.json.data.id}` });
  expect(res.json.data).toEqual(got.json.data);
});

test('PUT /operator/{id} changes the given fields only', clauses('REST-OP-07'), async ({ api }) => {
  const op = await createOperator(api);
  const res = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { pseudo: 'Renamed', chat_priority: 10, video_enabled: true, language_list: ['it'] } });
  expect(res.json?.meta?.status, res.text).toBe('success');
  const got = (await api.rest({ path: `/operator/${op.id}` })).json.data;
  expect(got).toEqual({ ...op, pseudo: 'Renamed', chat_priority: 10, video_enabled: true, language_list: ['it'] });
});

test('PUT /operator/{id} answers 200 and the updated operator', clauses('REST-OP-08'), async ({ api }) => {
  const op = await createOperator(api);
  const res = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { first_name: 'Updated' } });
  expect(res.status).toBe(200);
  expectSchema('rest/operator.json', res.json.data);
  expect(res.json.data).toEqual({ ...op, first_name: 'Updated' });
});

test('DELETE /operator/{id} deletes the operator', clauses('REST-OP-09'), async ({ api }) => {
  const op = await createOperator(api);
  const res = await api.rest({ method: 'DELETE', path: `/operator/${op.id}` });
  expect(res.json?.meta?.status).toBe('success');
  const got = await api.rest({ path: `/operator/${op.id}` });
  expect(got.json?.meta).toMatchObject({ status: 'fail', message: `Unknown 'operator' with 'id' ${op.id}.` });
  expect(await allItems(api, `/operator?filters[id]=${op.id}`)).toEqual([]);
  const again = await api.rest({ method: 'DELETE', path: `/operator/${op.id}` });
  expect(again.json?.meta?.message).toBe(`Unknown 'operator' with 'id' ${op.id}.`);
});

test('DELETE /operator/{id} answers data {"id": N}', clauses('REST-OP-10'), async ({ api }) => {
  const op = await createOperator(api);
  const res = await api.rest({ method: 'DELETE', path: `/operator/${op.id}` });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ meta: { status: 'success' }, data: { id: op.id } });
  expectSchema('rest/deleted.json', res.json.data);
});

test('form bodies with bracket lists create and update operators', clauses('REST-OP-11'), async ({ api }) => {
  const f = probeFields();
  const res = await api.rest({
    method: 'POST', path: '/operator',
    form: { name: String(f.name), first_name: 'Form', email: String(f.email), 'language_list[]': ['fr', 'en'], 'roles[]': ['manager'], chat_enabled: '1', call_enabled: '0', chat_max_number: '2', chat_priority: '10' },
  });
  expect(res.json?.meta?.status, res.text).toBe('success');
  const op = res.json.data;
  // The deprecated role derived from roles is REST-OP-04's decision, judged by its own checks.
  expect(op).toMatchObject({ first_name: 'Form', language_list: ['fr', 'en'], roles: ['manager'], chat_enabled: true, call_enabled: false, chat_max_number: 2, chat_priority: 10 });
  const websites = await allItems(api, '/website');
  const upd = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, form: { 'website_list[]': websites.map((w) => String(w.id)), 'language_list[]': ['de'], pseudo: 'FormPseudo' } });
  expect(upd.json?.meta?.status, upd.text).toBe('success');
  // What was stored is read back: what a PUT answers besides success is REST-OP-08's decision (G12).
  const stored = async () => (await api.rest({ path: `/operator/${op.id}` })).json.data;
  expect(await stored()).toMatchObject({ website_list: websites.map((w) => w.id), language_list: ['de'], pseudo: 'FormPseudo' });
  const json = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { language_list: ['es', 'pt'] } });
  expect(json.json?.meta?.status, json.text).toBe('success');
  expect((await stored()).language_list).toEqual(['es', 'pt']);
});

test('form bodies with indexed lists (PHP http_build_query: language_list[0]=fr) create and update operators', clauses('REST-OP-17'), async ({ api }) => {
  const f = probeFields();
  // The body exactly as PHP's http_build_query writes a list: indexed keys, brackets percent-encoded.
  const form = new URLSearchParams({ name: String(f.name), first_name: 'Php', email: String(f.email), 'language_list[0]': 'fr', 'language_list[1]': 'en', 'roles[0]': 'manager', chat_enabled: '1', call_enabled: '0', chat_max_number: '2', chat_priority: '10' }).toString();
  const res = await api.rest({ method: 'POST', path: '/operator', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(res.json?.meta?.status, `an indexed list must be read as the list (G26): ${res.text}`).toBe('success');
  expect(res.json.data).toMatchObject({ first_name: 'Php', language_list: ['fr', 'en'], roles: ['manager'] });
  const upd = await api.rest({ method: 'PUT', path: `/operator/${res.json.data.id}`, body: 'language_list%5B0%5D=de&language_list%5B1%5D=it', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(upd.json?.meta?.status, upd.text).toBe('success');
  // What was stored is read back: what a PUT answers besides success is REST-OP-08's decision (G12).
  expect((await api.rest({ path: `/operator/${res.json.data.id}` })).json.data.language_list).toEqual(['de', 'it']);
});

/**
 * An invalid body is refused (a fail or error envelope) and stores nothing (create: no operator with that e-mail; update:
 * unchanged). The 400 and the fail status are G10 decisions: in a check of a spec clause they are judged under REST-OP-16 (G34),
 * in REST-OP-16's own check with its other assertions (`g10Clause` null).
 */
async function expectRefused(api: Api, body: Record<string, unknown>, what: string, g10Clause: string | null = 'REST-OP-16') {
  const fields = probeFields(body);
  // The refusal itself is the clause of the field refused (the check's first); G10's status and meta.status are g10Clause's.
  const own = test.info().tags.map((t) => t.replace(/^@/, '')).find((t) => t !== 'REST-OP-16') ?? 'REST-OP-16';
  const created = await api.rest({ method: 'POST', path: '/operator', json: fields });
  await under(own, async () => {
    expectFail(created, 400, g10Clause ?? undefined);
    expect(await allItems(api, `/operator?filters[external_id]=${fields.external_id}`), `${what}: nothing created`).toEqual([]);
  });
  const op = await createOperator(api);
  const updated = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: body });
  await under(own, async () => {
    expectFail(updated, 400, g10Clause ?? undefined);
    expect((await api.rest({ path: `/operator/${op.id}` })).json.data, `${what}: operator unchanged`).toEqual(op);
  });
  return created.json?.meta?.message as string;
}

// Titles describe the address: Playwright reads "@word" in a title as a tag.
for (const [email, what] of [['not-an-email', 'without an at sign'], ['a@b', 'with a domain without a dot'], ['two words@x.example', 'with a space'], ['@x.example', 'with nothing before the at sign'], ['x@', 'with nothing after the at sign']] as const) {
  test(`an invalid e-mail (${what}) is refused`, clauses('REST-OP-12', 'REST-OP-16'), async ({ api }) => {
    await expectRefused(api, { email }, `email ${email}`);
  });
}

const ENUMS: Array<[string, unknown]> = [
  ['roles', ['boss']], ['roles', []], ['roles', 'admin'], ['role', 'expert'], ['role', 'owner'], ['language_admin', 'it'], ['language_admin', 'EN'],
  ['chat_priority', 5], ['call_priority', 1], ['video_priority', '3'], ['chat_priority', -10],
];
for (const [field, value] of ENUMS) {
  test(`${field} = ${JSON.stringify(value)} is refused`, clauses('REST-OP-13', 'REST-OP-16'), async ({ api }) => {
    await expectRefused(api, { [field]: value }, field);
  });
}

for (const [field, value] of [['chat_enabled', 'yes'], ['call_enabled', 2], ['chat_and_call', 'maybe'], ['chat_max_number', 'three'], ['chat_max_number', 1.5], ['chat_max_number', -1]] as const) {
  test(`${field} = ${JSON.stringify(value)} is refused`, clauses('REST-OP-14', 'REST-OP-16'), async ({ api }) => {
    await expectRefused(api, { [field]: value }, field);
  });
}

const LISTS: Array<[string, unknown]> = [
  ['language_list', ['xx']], ['language_list', ['eng']], ['language_list', 'fr'], ['website_list', [ABSENT_ID]], ['website_list', ['a']],
  ['skill_list', [ABSENT_ID]], ['group_id', ABSENT_ID],
];
for (const [field, value] of LISTS) {
  test(`${field} = ${JSON.stringify(value)} is refused`, clauses('REST-OP-15', 'REST-OP-16'), async ({ api }) => {
    await expectRefused(api, { [field]: value }, field);
  });
}

test('a refused body names every invalid field', clauses('REST-OP-16'), async ({ api }) => {
  const message = await expectRefused(api, { email: 'nope', chat_priority: 7, language_list: ['zz'] }, 'three fields', null);
  for (const f of ['email', 'chat_priority', 'language_list']) expect(message, `the fail names ${f}`).toContain(f);
  const missing = await api.rest({ method: 'POST', path: '/operator', json: { pseudo: 'x' } });
  expectFail(missing, 400);
  for (const f of ['name', 'first_name', 'email']) expect(missing.json.meta.message).toContain(f);
  const unknown = await api.rest({ method: 'POST', path: '/operator', json: probeFields({ favourite_colour: 'blue' }) });
  expectFail(unknown, 400);
  expect(unknown.json.meta.message).toContain('favourite_colour');
});
