// What a webhook check needs of a subscription's creation through the platform API (its set-up step, judged under WH-SUB-01): a pure rule, so a unit test holds it.

/**
 * Why an answer to POST {platform_url}/webhooks is no subscription a check can use, or undefined when it is one: any 2xx with the
 * subscription's id (G10: success is the 2xx class). Its exact status, 201, is G17's decision, judged apart under WH-SUB-01 (a
 * platform API that answers 200 leaves every check's own clauses judged: webhooks-subscription-created-200).
 */
export function subscriptionProblem(res: { status: number; json?: any; text: string }): string | undefined {
  if (res.status < 200 || res.status > 299) return `subscription refused: ${res.status} ${res.text.slice(0, 200)}`;
  if (typeof res.json?.id !== 'string') return `the subscription has no id: ${res.text.slice(0, 200)}`;
  return undefined;
}
