// Reads the CI recipes of docs/ci.md: every YAML block parsed, and each job's `ces` commands with the variables the job sets (for test/ci-docs.test.ts and the package test).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const CI_DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'ci.md');

/**
 * A job's or step's variables as the shell sees them. Those set from GitHub's secret store (`${{ secrets.X }}`) are left out: like
 * GitLab's masked CI/CD variables they come from outside the file (the package test gives them).
 */
const variables = (env) => Object.fromEntries(Object.entries(env ?? {}).filter(([, v]) => !/\$\{\{\s*secrets\./.test(String(v))).map(([k, v]) => [k, String(v)]));

/**
 * The YAML blocks of the page, each with the heading above it, the system (from its first comment line: `.github/workflows/...`
 * or `.gitlab-ci.yml`) and its jobs: name, variables (job level, then step level for GitHub) and the `npx ces ...` lines of its
 * steps or script, in order. Throws on a block that does not parse, naming its heading and YAML's message.
 */
export function readRecipes(file = CI_DOC) {
  const text = fs.readFileSync(file, 'utf8');
  const out = [];
  let heading = '';
  const re = /^(#{1,6} .*)$|^```yaml\n([\s\S]*?)^```$/gm;
  for (let m; (m = re.exec(text)); ) {
    if (m[1]) { heading = m[1].replace(/^#+ /, ''); continue; }
    const source = m[2];
    const doc = YAML.parseDocument(source, { prettyErrors: true });
    if (doc.errors.length) throw new Error(`docs/ci.md, "${heading}": the YAML does not parse: ${doc.errors[0].message}`);
    const data = doc.toJS();
    const first = source.split('\n')[0] ?? '';
    const system = /\.github\/workflows\//.test(first) ? 'github' : /\.gitlab-ci\.yml/.test(first) ? 'gitlab' : undefined;
    if (!system) throw new Error(`docs/ci.md, "${heading}": the first line of a block names its file (# .github/workflows/x.yml or # .gitlab-ci.yml)`);
    const jobs = [];
    if (system === 'github') {
      for (const [name, job] of Object.entries(data?.jobs ?? {})) {
        const env = variables(job.env);
        const steps = (job.steps ?? []).map((s) => ({ run: s.run, env: { ...env, ...variables(s.env) }, uses: s.uses }));
        jobs.push({ name, steps, commands: cesCommands(steps) });
      }
    } else {
      for (const [name, job] of Object.entries(data ?? {})) {
        if (!job || typeof job !== 'object' || !Array.isArray(job.script)) continue;
        const env = variables(job.variables);
        const steps = job.script.map((run) => ({ run, env }));
        jobs.push({ name, steps, commands: cesCommands(steps), artifacts: job.artifacts });
      }
    }
    out.push({ heading, system, file: first.replace(/^#\s*/, ''), data, jobs });
  }
  return out;
}

/** The `npx ces ...` command lines of the steps (a step's run may hold several lines), each with the variables in force. */
function cesCommands(steps) {
  return steps.flatMap((s) => (typeof s.run === 'string' ? s.run.split('\n') : []).map((l) => l.trim()).filter((l) => l.startsWith('npx ces ')).map((text) => ({ text, env: s.env })));
}
