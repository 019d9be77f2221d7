// REST authentication: the three ways of giving the API key, and the Forbidden answer.
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';

const WAYS = [['header', 'REST-AUTH-01'], ['query', 'REST-AUTH-02'], ['basic', 'REST-AUTH-03']] as const;

for (const [way, clause] of WAYS) {
  test(`the API key given by ${way} authenticates`, clauses(clause), async ({ api }) => {
    const res = await api.rest({ path: '/operator?limit=1', auth: way });
    expect(res.status).toBe(200);
    expect(res.json?.meta?.status).toBe('success');
  });

  test(`a wrong API key given by ${way} is Forbidden`, clauses('REST-AUTH-04', 'REST-AUTH-05'), async ({ api }) => {
    const res = await api.rest({ path: '/operator', auth: way, key: 'not-a-valid-key-0000' });
    expect(res.json?.meta).toEqual({ status: 'error', message: 'Forbidden' });
    expect(res.status).toBe(403);
  });
}

test('a request without any key is Forbidden', clauses('REST-AUTH-04', 'REST-AUTH-05'), async ({ api }) => {
  const res = await api.rest({ path: '/operator', auth: 'none' });
  expect(res.json?.meta).toEqual({ status: 'error', message: 'Forbidden' });
  expect(res.status).toBe(403);
});

void expectSchema;
