// k6 scenario graphql-read: typical GraphQL reads at a constant arrival rate with one bearer token per user, obtained once in setup().
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { target, baseOptions, envInt, envDuration, tags, json, summary, BUDGETS, LIMITS } from './lib/ces.js';

/** Typical reads named by the spec (client, projects, conversationTag, searchClosedConversations, satisfactionSurveyResponses, routingRule). */
const OPERATIONS = {
  client: () => '{ client { id name lang premiumEnabled } }',
  projects: () => '{ projects { edges { node { id name } } } }',
  'conversation-tags': () => `{ conversationTags(first: ${LIMITS.graphqlPageDefault}) { totalCount edges { node { id name } } } }`,
  'closed-conversations': (i) => `{ searchClosedConversations(first: ${[10, 50][i % 2]}) { totalCount pageInfo { hasNextPage endCursor } edges { node { id channel createdAt closedAt operatorIds tags { id name } satisfactionSurvey { noteWelcome nodeDelay } } } } }`,
  'survey-responses': () => `{ satisfactionSurveyResponses(first: ${LIMITS.graphqlPageDefault}) { totalCount edges { node { id noteWelcome noteResolution nodeDelay } } } }`,
  'routing-rules': () => `{ routingRules(first: ${LIMITS.graphqlPageDefault}) { edges { node { id name projectId } } } }`,
};
const NAMES = Object.keys(OPERATIONS);

const rate = envInt('CES_RATE', 15);
const thresholds = {
  // Tokens come from setup() only: at most one login per user per k6 instance, far below the spec's 10 per minute.
  'checks{endpoint:oauth2-token,clause:LOAD-GQL-01}': ['rate==1'],
};
for (const n of NAMES) {
  thresholds[`http_req_duration{endpoint:${n},clause:LOAD-GQL-02}`] = [`p(95)<${BUDGETS.graphqlP95Ms}`];
  thresholds[`http_reqs{endpoint:${n},clause:LOAD-GQL-02}`] = ['count>0'];
  thresholds[`checks{endpoint:${n},clause:LOAD-GQL-01}`] = [`rate>${BUDGETS.readSuccessRate}`];
}

export const options = {
  ...baseOptions(),
  scenarios: {
    'graphql-read': {
      executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: envDuration('30s'),
      preAllocatedVUs: Math.max(4, Math.ceil(rate / 2)), maxVUs: Math.max(10, rate * 2),
    },
  },
  thresholds,
};

/** One password-grant login per user of the target (the login throttle counts logins, so tokens are shared by every VU). */
export function setup() {
  const users = target.users?.length ? target.users : [target.user];
  const tokens = [];
  for (const u of users) {
    const res = http.post(`${target.base_url}/oauth2/token`, { grant_type: 'password', username: u.username, password: u.password }, { tags: tags('oauth2-token', 'LOAD-GQL-01') });
    const body = json(res);
    check(res, { 'token issued': () => res.status === 200 && typeof body?.access_token === 'string' }, tags('oauth2-token', 'LOAD-GQL-01'));
    if (body?.access_token) tokens.push(body.access_token);
  }
  if (!tokens.length) throw new Error(`no access token from ${target.base_url}/oauth2/token: check the target's user credentials`);
  return { tokens };
}

export default function (data) {
  // The instance's own counter: each execution segment cycles through every endpoint (a global counter would give one segment only the even ones).
  const i = exec.scenario.iterationInInstance;
  const name = NAMES[i % NAMES.length];
  const token = data.tokens[Math.floor(i / NAMES.length) % data.tokens.length];
  const res = http.post(target.graphql_url, JSON.stringify({ query: OPERATIONS[name](i) }), {
    headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json, application/json', Authorization: `Bearer ${token}` },
    tags: tags(name, 'LOAD-GQL-02'),
  });
  const body = json(res);
  check(res, {
    'status 200': (r) => r.status === 200,
    'data without errors': () => !!body?.data && !(body.errors?.length),
  }, tags(name, 'LOAD-GQL-01'));
}

export const handleSummary = summary('graphql-read');
