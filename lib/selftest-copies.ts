// `ces selftest`'s copies of a check: the check declared once more for each planned project (of faults, of alternatives) that runs it, so that all of them run in one Playwright project.
//
// Why: Playwright never lets a worker process run checks of two projects (its worker hash names the project), and the plan has
// a project per colour of its faults (cli/selftest-plan.ts: no check twice in a project), so a 9-lane self-test started 77
// worker processes, about 1 CPU-s of start each and half of the self-test's CPU. A copy titled with its planned project lets one
// Playwright project hold every fault's run of every check: its grep picks each copy by the grep of its planned project, the
// fixture switches on that project's deviation of the check (suites/fixtures/target.ts), and the copies' workers serve all.

/** A planned project (cli/selftest-plan.ts PlannedProject): what a copy stands for (the baseline keeps a project of its own). */
export interface CopiedProject { name: string; grep?: string; suites?: string[]; skipSuites?: string[]; baseline?: boolean; together?: boolean; deviations: Array<{ id: string; clauses: string[]; wire?: boolean; checks?: number }> }

/** A copy's title: the check's, then its planned project between ⟨ ⟩ (Playwright refuses two checks of one title in a file). */
export const copyTitle = (title: string, project: string): string => `${title} ⟨${project}⟩`;
/** The marker of a copy's title (no backtracking: a literal, one character class, an anchor). */
const MARK = / ⟨([\w-]+)⟩$/;
/** Matches what Playwright greps of a copy (`<file> <describes> <title> <tags>`): the projects that must not run copies invert it. */
export const COPY_GREP = / ⟨[\w-]+⟩(?: @|$)/;
/** The planned project a copy stands for (undefined: not a copy). */
export const copyProject = (title: string): string | undefined => MARK.exec(title)?.[1];
/** A check's own title, the copy's marker removed: the title of the check in every record (matrix, proofs, outcomes). */
export const originalTitle = (title: string): string => title.replace(MARK, '');

/**
 * The planned projects a check is copied for: those of faults with a deviation naming one of its clauses, and those of
 * alternatives whose suites hold it (their grep, if any, picks among the copies). Never the baseline: it runs the checks themselves.
 */
export const copiesFor = (clauses: Iterable<string>, suite: string, projects: CopiedProject[]): CopiedProject[] => {
  const named = new Set(clauses);
  return projects.filter((p) => !p.baseline && (p.together
    ? (!p.suites || p.suites.includes(suite)) && !p.skipSuites?.includes(suite)
    : p.deviations.some((d) => d.clauses.some((c) => named.has(c)))));
};

/** A text as a literal inside a regular expression (the self-test's greps of clause tags, titles and project names). */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The grep of the one Playwright project of copies: a copy runs when its title names a planned project whose own grep it
 * matches. Playwright greps `<file> <describes> <title> <tags>`; a copy's marker sits after its title, before the tags, so the
 * planned greps, which look for clause tags and (cli/selftest-matrix.ts narrowPlan) titles followed by their tags, still match.
 */
export function copiesGrep(projects: CopiedProject[]): RegExp {
  const one = (p: CopiedProject) => `(?=.* ⟨${escapeRegExp(p.name)}⟩(?: @|$))${p.grep ? `(?=.*?(?:${p.grep}))` : ''}`;
  return new RegExp(`^(?:${projects.map(one).join('|')})`);
}
