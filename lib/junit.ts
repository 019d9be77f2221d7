// junit.xml of a run, written from the checks in the verdict vocabulary (lib/verdicts.ts): FAIL is <failure>, HARNESS ERROR is <error>, SKIP and NOT JUDGED are <skipped>, WARN and NOTE pass with a property.
import type { CheckResult } from './results.js';
import { LABEL, LEGEND, COUNTED, type Verdict } from './verdicts.js';
import { checkReasons, maskAll } from './results.js';

const x = (s: unknown) => String(s ?? '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
  // XML 1.0 has no place for most control characters.
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit XML: one testsuite per project, one testcase per check; the legend as properties of the whole. */
export function junitXml(name: string, checks: CheckResult[], verdicts: Verdict[]): string {
  const projects = [...new Set(checks.map((c) => c.project))];
  const suites = projects.map((p) => {
    const mine = checks.map((c, i) => ({ c, v: verdicts[i]! })).filter(({ c }) => c.project === p);
    const n = (f: (v: Verdict) => boolean) => mine.filter(({ v }) => f(v)).length;
    const cases = mine.map(({ c, v }) => {
      const props = [`<property name="verdict" value="${x(LABEL[v])}"/>`, ...c.clauses.map((id) => `<property name="clause" value="${x(id)}"/>`),
        ...(c.warnings ?? []).map((w) => `<property name="warn" value="${x(w)}"/>`), ...(c.notes ?? []).map((w) => `<property name="note" value="${x(w)}"/>`)];
      const reasons = checkReasons(c);
      const reason = reasons.join('\n');
      const body = v === 'fail' ? `<failure type="FAIL" message="${x(reason.split('\n')[0])}">${x(reason)}</failure>`
        : v === 'harness-error' ? `<error type="HARNESS ERROR" message="${x(reason.split('\n')[0])}">${x(reason)}</error>`
          : v === 'skipped' || v === 'not-judged' ? `<skipped message="${x(`${LABEL[v]}: ${reason}`)}"/>` : '';
      const out = [...(['warn', 'note'].includes(v) ? reasons.map((r) => `${LABEL[v]}: ${r}`) : []), ...(c.reproductions ?? []).map((r) => `reproduction:\n${r}`)];
      return `<testcase name="${x(c.title)}" classname="${x(c.file)}" time="${(c.durationMs / 1000).toFixed(3)}"><properties>${props.join('')}</properties>${body}${out.length ? `<system-out>${x(out.join('\n'))}</system-out>` : ''}</testcase>`;
    });
    return `<testsuite name="${x(p)}" tests="${mine.length}" failures="${n((v) => v === 'fail')}" errors="${n((v) => v === 'harness-error')}" skipped="${n((v) => v === 'skipped' || v === 'not-judged')}">\n${cases.join('\n')}\n</testsuite>`;
  });
  // The legend as a comment: <testsuites> has no properties in the JUnit schema.
  const legend = COUNTED.map((v) => `  ${LABEL[v]}: ${LEGEND[v]}`.replace(/--/g, '- -')).join('\n');
  return maskAll(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${x(name)}" tests="${checks.length}" failures="${verdicts.filter((v) => v === 'fail').length}" errors="${verdicts.filter((v) => v === 'harness-error').length}">
<!-- verdicts:
${legend}
-->
${suites.join('\n')}
</testsuites>
`);
}
