// REST authentication: the three ways of giving the API key, and the Forbidden answer.
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { under } from '../verdicts.js';

const WAYS = [['header', 'REST-AUTH-01'], ['query', 'REST-AUTH-02'], ['basic', 'REST-AUTH-03']] as const;

for (const [way, clause] of WAYS) {
  test(`the API key given by ${way} authenticates`, clauses(clause), async ({ api }) => {
    const res = await api.rest({ path: '/operator?limit=1', auth: way });
    expect(res.status).toBe(200);
    expect(res.json?.meta?.status).toBe('success');
  });

  test(`a wrong API key given by ${way} is Forbidden`, clauses('REST-AUTH-04', 'REST-AUTH-05'), async ({ api }) => {
    const res = await api.rest({ path: '/operator', auth: way, key: 'not-a-valid-key-0000' });
    // The spec's body (MUST) and the status code, a decision G10 (REF), each judged under its own clause (G34).
    under('REST-AUTH-04', () => expect(res.json?.meta, 'a failed authentication answers meta.status "error", meta.message "Forbidden"').toMatchObject({ status: 'error', message: 'Forbidden' }));
    under('REST-AUTH-05', () => expect(res.status, 'G10: an authentication failure answers 403').toBe(403));
  });
}

test('a request without any key is Forbidden', clauses('REST-AUTH-04', 'REST-AUTH-05'), async ({ api }) => {
  const res = await api.rest({ path: '/operator', auth: 'none' });
  under('REST-AUTH-04', () => expect(res.json?.meta, 'a failed authentication answers meta.status "error", meta.message "Forbidden"').toMatchObject({ status: 'error', message: 'Forbidden' }));
  under('REST-AUTH-05', () => expect(res.status, 'G10: an authentication failure answers 403').toBe(403));
});

void expectSchema;
