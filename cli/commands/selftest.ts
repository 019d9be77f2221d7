// `ces selftest`: proves every check can fail, by running the checks of each deviation's clauses against a deviant reference implementation; and that another conforming decision (an alternative) reports its REF clauses and nothing else.
import type { CommandModule } from 'yargs';
import fs from 'node:fs';
import path from 'node:path';
import { clauseById, isAlternative, loadClauses, loadDeviations, type Deviation } from '../../lib/catalogue.js';
import { UNIT_PASSED_ENV, clauseProofs, confirmedRecord, loadProofRecord, proofLine, readUnitPasses, unprovenMust } from '../../lib/proofs.js';
import { listChecks } from '../../lib/list-checks.js';
import { mergedOutcome, missedRuns, planSelftest, readSelftestResults, secondPassPlan } from '../selftest-plan.js';
import { narrowPlan, needsFallback, readStoredMatrix } from '../selftest-matrix.js';
import { newRunDir, runPlaywright, finishRun, MASKED_BY_RUN } from '../run.js';
import { resolveTarget } from '../embedded.js';
import { UsageError, commaList } from '../usage.js';
import { readRuns, type RunSummary } from '../../lib/landing.js';
import { loadWireFaults, type WireFault } from '../../wire/faults.js';
import { loadTarget, TargetError } from '../../lib/target.js';

interface Args { list: boolean; only?: string; area?: string; baseline: boolean; parallel: number; matrix?: string; 'require-proofs': boolean; wire: boolean; target?: string }

/** `connector [messages, role operator] request body, re-signed`: where a wire fault acts and what it changes. */
/** A second pass only when at most this many runs missed (a deviation or wire fault each, a run of alternatives once): more is no flake, and the run says so at once. */
const SECOND_PASS_MAX = 12;

const wireSeamOf = (f: WireFault): string => {
  const where = Object.entries(f.where ?? {}).map(([k, v]) => `${k} ${[v].flat().join('|')}`).join(', ');
  const what = [
    f.request?.query ? 'query' : '', f.request?.body ? 'request body' : '', f.request?.headers ? `headers ${f.request.headers.map((h) => h.name).join('|')}` : '',
    f.request?.sign ? `signed ${f.request.sign}` : '', f.request?.delayMs ? `held ${f.request.delayMs} ms` : '', f.drop ? `dropped (answered ${f.drop.status})` : '',
    f.answer?.status ? `answer status ${f.answer.status.map(([a, b]) => `${a}→${b}`).join(',')}` : '', f.answer?.body ? 'answer body' : '', f.repeat ? `sent again +${f.repeat.afterMs} ms` : '',
  ].filter(Boolean).join(', ');
  return `wire ${f.partner}${where ? ` [${where}]` : ''} ${what}`;
};

/** `rest.policy pageMax=100000` or `rest.response [tag] data.*.amount as string`: the seam of a deviation and what it changes. */
const seamOf = (d: Deviation): string => {
  const e = d as Deviation & { seam?: string; set?: Record<string, unknown>; edits?: Array<Record<string, unknown>>; where?: unknown };
  const change = e.set ? Object.entries(e.set).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')
    : (e.edits ?? []).map(({ at, ...op }) => `${at} ${Object.entries(op).map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(' ')}`).join('; ');
  return `${e.seam ?? '?'}${e.where ? ` [${[e.where].flat().join(',')}]` : ''} ${change}`;
};

export { clauseGrep } from '../selftest-plan.js';

export const selftestCommand: CommandModule<{}, Args> = {
  command: 'selftest',
  describe: 'Run each deviation against the checks of its clauses and fail unless every deviation is caught; run each alternative (another conforming decision) against every check of its suites and fail unless it makes its REF clauses report and nothing else',
  builder: (y) => y
    .option('list', { type: 'boolean', default: false, describe: 'List the deviations and their clauses, then exit' })
    .option('only', { type: 'string', describe: 'Comma list of deviation ids to run (or the option repeated)' })
    .option('area', { type: 'string', describe: 'Only deviations of this area (file name in fixtures/deviations/)' })
    .option('baseline', { type: 'boolean', default: true, describe: 'First check that the same checks pass with no deviation' })
    .option('parallel', { type: 'number', default: 1, describe: 'Lanes: Playwright workers, each with its own embedded stack whose deviation it switches between checks' })
    .option('matrix', { type: 'string', describe: 'The full run: every check of each fault\'s clauses (without it, each fault runs against the checks that caught it in docs/selftest-matrix.json, and every check of its clauses only when they miss it); also write FILE: {deviation: {checks: [titles of the checks that caught it], clauses: [clauses whose own assertions failed], proved: {check title: [the clauses its own assertions proved]}}} (--matrix docs/selftest-matrix.json refreshes the stored matrix; compare two with scripts/compare-selftest-matrix.ts)' })
    .option('require-proofs', { type: 'boolean', default: false, describe: `Fail (exit 1) when a MUST clause has no proof: no assertion of its own failed under a deviation, and no partner variant, project test or listed exception proves it (a whole run only); and when an entry of fixtures/proofs.json is not confirmed: its test did not pass in this run (the unit tests that passed, in the file ${UNIT_PASSED_ENV} names: npm test sets it; run alone, every entry is listed unconfirmed)` })
    .option('wire', { type: 'boolean', default: false, describe: 'Also run the wire faults (fixtures/wire-faults.json): a mutating proxy between the service and its fake connector and webhook sink changes what crosses the wire, and a check of each fault\'s clause must fail. Embedded: each stack gets its proxy (with --area wire, the wire faults only). With --target: the target\'s `wire_url` (a `ces wire` proxy in front of its partners), wire faults only' })
    .option('target', { type: 'string', describe: 'With --wire: a target file whose service reaches its connector and sink through a `ces wire` proxy (its `wire_url`); runs the wire faults against it' }),
  handler: async (a) => {
    let devs: Deviation[] = loadDeviations();
    let wireFaults: WireFault[] = a.wire || a.area === 'wire' || a.list ? loadWireFaults(new Set(loadClauses().map((c) => c.id))) : [];
    if (a.target && !a.wire) throw new UsageError('--target applies to the wire faults only: add --wire (deviations run in the embedded reference implementation)');
    if (a.list) {
      // Where each deviation acts (the recipe of docs/ARCHITECTURE.md): its seam and what it changes there.
      console.log('deviations: id, clauses, seam and what it changes, description (alternative: another decision a conforming service may take; it must report its REF clauses and nothing else)');
      for (const d of devs) console.log(`${d.id.padEnd(36)} ${d.clauses.join(',').padEnd(40)} ${seamOf(d).padEnd(48)} ${isAlternative(d) ? '[alternative] ' : ''}${d.description}`);
      console.log(`\nwire faults (--wire): id, clauses, where the proxy acts and what it changes, description`);
      for (const f of wireFaults) console.log(`${f.id.padEnd(36)} ${f.clauses.join(',').padEnd(40)} ${wireSeamOf(f).padEnd(48)} ${f.description}`);
      // Per clause: its checks and its proofs (the latest self-test run in the reports folder, and fixtures/proofs.json).
      const catalogue = loadClauses().filter((c) => !c.retired);
      const checks = listChecks();
      const latest = readRuns().find((r) => r.kind === 'selftest');
      const proofs = clauseProofs(catalogue, devs, latest, loadProofRecord());
      console.log(`\nclauses: id, severity, checks, proofs (${latest ? `self-test run ${latest.id}` : 'no self-test run in the reports folder yet: deviations show as not run'}; fixtures/proofs.json)`);
      for (const c of catalogue) console.log(`${c.id.padEnd(22)} ${c.severity.padEnd(6)} ${String(checks.filter((k) => k.clauses.includes(c.id)).length).padStart(3)} check(s)  ${proofLine(proofs.get(c.id))}`);
      const unproven = unprovenMust(catalogue, proofs);
      console.log(`\n${unproven.length} MUST clause(s) without a proof${unproven.length ? `: ${unproven.map((c) => c.id).join(', ')}` : ''}`);
      return;
    }
    if (a.only) {
      const want = commaList(a.only);
      const unknown = want.filter((w) => !devs.some((d) => d.id === w) && !wireFaults.some((f) => f.id === w));
      if (unknown.length) throw new UsageError(`unknown deviation(s) or wire fault(s) ${unknown.join(', ')}${unknown.some((u) => u.startsWith('wire-')) && !a.wire ? ' (wire faults need --wire)' : ''}; see \`ces selftest --list\``);
      devs = devs.filter((d) => want.includes(d.id));
      wireFaults = wireFaults.filter((f) => want.includes(f.id));
    }
    if (a.area) {
      devs = a.area === 'wire' ? [] : devs.filter((d) => d.area === a.area);
      if (a.area !== 'wire') wireFaults = [];
      if (!devs.length && !wireFaults.length) throw new UsageError(`no deviation in area "${a.area}" (areas: the files of fixtures/deviations/, or "wire")`);
    }
    let external: ReturnType<typeof loadTarget> | undefined;
    if (a.target) {
      try { external = loadTarget(a.target); } catch (e) { if (e instanceof TargetError) throw new UsageError(e.message); throw e; }
      if (!external.wire_url) throw new UsageError(`target file ${a.target} has no "wire_url": run \`ces wire --connector-upstream <your fake connector> --sink-upstream <your sink> --connector-secret S\` between your service and its partners, point the service at the proxy's URLs, and put its wire_url in the target file`);
      // Deviations switch the embedded reference implementation only.
      devs = [];
    }
    const run = newRunDir('selftest');
    // A target file is one service: one lane (its checks would disturb one another's wire fault).
    const lanes = external ? 1 : Math.max(1, Math.min(a.parallel, devs.length + wireFaults.length || 1));
    // One Playwright run: the deviations grouped into a few projects (no check belongs to two deviations of one project), each
    // worker on its own embedded stack whose deviation its fixture switches before every check, so a deviation never reaches
    // another lane and a worker runs many deviations without restarting (suites/fixtures.ts, cli/selftest-plan.ts).
    const mutationsPlanned = [...devs, ...wireFaults.map((f) => ({ id: f.id, clauses: f.clauses, wire: true }))];
    const checks = listChecks();
    // Each fault against the checks that caught it in the stored matrix (cli/selftest-matrix.ts), every check of its clauses on a
    // miss below; --matrix is the full run that refreshes the matrix.
    const stored = a.matrix ? undefined : readStoredMatrix();
    const { plan, narrowed } = stored ? narrowPlan(planSelftest(mutationsPlanned, checks, a.baseline), mutationsPlanned, checks, stored) : { plan: planSelftest(mutationsPlanned, checks, a.baseline), narrowed: [] as string[] };
    const resolved = await resolveTarget({ runDir: run.dir, stacks: lanes, wire: wireFaults.length > 0, ...(a.target ? { target: a.target } : {}) });
    const planFile = path.join(path.dirname(resolved.file), 'selftest-plan.json');
    fs.writeFileSync(planFile, JSON.stringify(plan));
    const mutations: NonNullable<RunSummary['mutations']> = [];
    /** Deviations and wire faults caught only on the second pass (flaky under load): reported, and kept in the run's summary. */
    const secondPass: string[] = [];
    const wireOutcomes: NonNullable<RunSummary['wireFaults']> = [];
    /** Per fault, the clauses each check that caught it proved (--matrix writes them: cli/selftest-matrix.ts MatrixRow.proved). */
    const proved = new Map<string, Record<string, string[]>>();
    const provedBy = (failed: Array<{ title: string; clauses: string[] }>) => {
      const byCheck: Record<string, string[]> = {};
      for (const f of failed) byCheck[f.title] = [...new Set([...(byCheck[f.title] ?? []), ...f.clauses])].sort();
      return byCheck;
    };
    let baselineOk = true;
    try {
      const alts = devs.filter(isAlternative).length;
      console.log(`selftest: ${devs.length - alts} deviations${wireFaults.length ? ` and ${wireFaults.length} wire faults` : ''} in ${plan.filter((p) => !p.baseline && !p.together).length} project(s), ${alts} alternative(s) in ${plan.filter((p) => p.together).length} (every check of their suites, all of a project's on at once), on ${lanes} lane(s)${a.baseline ? ', with a baseline (no deviation) first' : ''}${narrowed.length ? `; ${narrowed.length} against the checks that caught them before (docs/selftest-matrix.json)` : ''}`);
      const runPass = async (dir: string, file: string, mutationsOfPass: typeof mutationsPlanned): Promise<ReturnType<typeof readSelftestResults>> => {
        await runPlaywright({ targetFile: resolved.file, targetFiles: resolved.files, runDir: dir, quiet: true, progress: true, workers: lanes, allure: false, extraEnv: { CES_SELFTEST_PLAN: file } });
        const resultsFile = path.join(dir, 'results.json');
        return fs.existsSync(resultsFile) ? readSelftestResults(resultsFile, mutationsOfPass) : { byDeviation: new Map(), byAlternative: new Map(), baselineFailed: [], baselineRan: 0, alternativeTitles: new Set<string>() };
      };
      const out = await runPass(run.dir, planFile, mutationsPlanned);
      // A second pass, once, for what the first did not settle (missed, or broken by a harness error): a check's real-time window
      // can miss on a loaded machine. What the second pass catches is reported as such (flaky under load), never silently.
      // Settled: caught by a check of its own, no harness error, and (an alternative) nothing reported outside its clauses.
      type Outcome = { failed: unknown[]; harnessErrors: unknown[]; outside?: unknown[] } | undefined;
      const settledBy = (o: Outcome) => !!o && o.failed.length > 0 && !o.harnessErrors.length && !o.outside?.length;
      const outcomeOf = (r: typeof out, id: string): Outcome => r.byDeviation.get(id) ?? r.byAlternative.get(id);
      // A narrowed fault that its chosen checks missed, or whose proofs they lost, runs against every check of its clauses, and that
      // outcome is its outcome: a miss of the narrowed plan is no miss of the self-test.
      const fallback = mutationsPlanned.filter((m) => narrowed.includes(m.id) && needsFallback(m, out.byDeviation.get(m.id), stored?.[m.id]));
      /** Faults whose second pass was the fallback run (their first run broke in the harness): no other pass follows. */
      const secondPassDone = new Set<string>();
      if (fallback.length) {
        console.log(`selftest: ${fallback.length} not caught (or not proven) by the checks that caught them before: every check of their clauses: ${fallback.map((m) => m.id).join(', ')}`);
        const dir = path.join(run.dir, 'fallback');
        fs.mkdirSync(dir, { recursive: true });
        const file = path.join(path.dirname(resolved.file), 'selftest-plan-fallback.json');
        fs.writeFileSync(file, JSON.stringify(planSelftest(fallback, checks, false)));
        // A fault whose first run broke in the harness (rather than missed) meets its checks again here: for it this run is the
        // second pass, and is said to be (a harness error once is a flake under load, reported, never silently absorbed).
        const broken = fallback.filter((m) => out.byDeviation.get(m.id)?.harnessErrors.length);
        if (broken.length) console.log(`selftest: second pass for ${broken.length} not settled by the first (missed or a harness error): ${broken.map((m) => m.id).join(', ')}, against every check of their clauses`);
        const back = await runPass(dir, file, fallback);
        for (const m of broken) {
          secondPassDone.add(m.id);
          const first = out.byDeviation.get(m.id)!;
          const settled = settledBy(back.byDeviation.get(m.id));
          console.log(`  ${m.id}: first pass ${first.harnessErrors.length} harness error(s) (${first.harnessErrors.map((c) => c.reason.split('\n')[0]).join('; ')}); second pass ${settled ? 'caught: flaky under load' : 'not settled either'}`);
          if (settled) secondPass.push(m.id);
        }
        for (const m of fallback) { const o = back.byDeviation.get(m.id); if (o) out.byDeviation.set(m.id, o); else out.byDeviation.delete(m.id); }
      }
      const unsettled = mutationsPlanned.filter((m) => !settledBy(outcomeOf(out, m.id)) && !secondPassDone.has(m.id));
      if (unsettled.length && missedRuns(unsettled.map((m) => m.id), plan) <= SECOND_PASS_MAX && !a.baseline) {
        // Alternatives run together: one unsettled alternative runs its run again (the others are on in it too), only the checks that
        // reported outside their clauses or broke when every member reported its own clauses (cli/selftest-plan.ts secondPassPlan).
        const second = secondPassPlan(unsettled, plan, checks, out.byAlternative);
        const again = [...unsettled.filter((m) => !second.members.includes(m.id)), ...mutationsPlanned.filter((m) => second.members.includes(m.id))];
        console.log(`selftest: second pass for ${again.length} not settled by the first (missed or a harness error): ${again.map((m) => m.id).join(', ')}`);
        if (second.rerun) console.log(`selftest: the runs of alternatives again on the ${second.rerun.size} check(s) that reported outside their clauses or broke (their other checks' reports stand): ${[...second.rerun].join('; ')}`);
        const dir = path.join(run.dir, 'second-pass');
        fs.mkdirSync(dir, { recursive: true });
        const file2 = path.join(path.dirname(resolved.file), 'selftest-plan-2.json');
        fs.writeFileSync(file2, JSON.stringify(second.plan));
        const out2 = await runPass(dir, file2, again);
        const ranAgain = new Set([...second.rerun ?? []].filter((t) => out2.alternativeTitles.has(t)));
        for (const m of again) {
          const firstAlt = out.byAlternative.get(m.id);
          const first = out.byDeviation.get(m.id) ?? firstAlt;
          if (out2.byDeviation.has(m.id)) out.byDeviation.set(m.id, out2.byDeviation.get(m.id)!);
          if (second.rerun && firstAlt) out.byAlternative.set(m.id, mergedOutcome(firstAlt, out2.byAlternative.get(m.id), ranAgain));
          else if (out2.byAlternative.has(m.id)) out.byAlternative.set(m.id, out2.byAlternative.get(m.id)!);
          const settled = settledBy(outcomeOf(out, m.id));
          const outside = firstAlt?.outside.length ?? 0;
          console.log(`  ${m.id}: first pass ${first?.failed.length ? `${first.harnessErrors.length} harness error(s)${outside ? `, ${outside} report(s) outside its run's clauses` : ''}` : 'missed'}${first?.harnessErrors.length ? ` (${first.harnessErrors.map((c) => c.reason.split('\n')[0]).join('; ')})` : ''}; second pass ${settled ? 'caught: flaky under load' : 'not settled either'}`);
          if (settled) secondPass.push(m.id);
        }
      }
      const severity = clauseById();
      if (a.baseline) {
        baselineOk = out.baselineFailed.length === 0 && out.baselineRan > 0;
        for (const f of out.baselineFailed) console.log(`  baseline FAIL ${f.title}: ${f.reason.split('\n')[0]}`);
      }
      for (const d of devs) {
        const alt = isAlternative(d) ? out.byAlternative.get(d.id) : undefined;
        const o = isAlternative(d) ? alt : out.byDeviation.get(d.id);
        // Only a check's own failure catches a deviation; a harness error says nothing about it (lib/verdicts.ts).
        const failedChecks = (o?.failed ?? []).map((c) => c.title);
        const failedClauses = [...new Set((o?.failed ?? []).flatMap((c) => c.clauses))].sort();
        proved.set(d.id, provedBy(o?.failed ?? []));
        const harnessErrors = (o?.harnessErrors ?? []).map((c) => `${c.title}: ${c.reason.split('\n')[0]}`);
        // An alternative passes when it made its own clauses report and no check of its run reported any other clause.
        const outside = [...new Map((alt?.outside ?? []).map((x) => [`${x.clause}\u0000${x.title}`, `${x.clause} (${severity.get(x.clause)?.severity ?? 'unknown'}) in "${x.title}": ${x.reason.split('\n')[0]}`])).values()];
        const caught = failedChecks.length > 0 && outside.length === 0;
        mutations.push({ deviation: d.id, clauses: d.clauses, caught, failedChecks, failedClauses, ...(harnessErrors.length ? { harnessErrors } : {}), ...(isAlternative(d) ? { kind: 'alternative' as const, checksRun: o?.ran ?? 0, outside } : {}) });
        if (harnessErrors.length) console.log(`  ${d.id}: ${harnessErrors.length} HARNESS ERROR (the harness broke; not counted): ${harnessErrors.join('; ')}`);
        if (isAlternative(d) && !failedChecks.length) console.log(`  alternative ${d.id}: NOT REPORTED: none of ${o?.ran ?? 0} check(s) reported a clause of its own (${d.clauses.join(', ')})`);
      }
      // What a run of alternatives reported outside their clauses, once per run (it is laid to every alternative of the run).
      for (const p of plan.filter((x) => x.together)) {
        const outside = mutations.find((m) => m.deviation === p.deviations[0]?.id)?.outside ?? [];
        if (!outside.length) continue;
        console.log(`  ${p.name} (${p.deviations.map((d) => d.id).join(', ')} on together): ${outside.length} report(s) outside their clauses, none allowed:`);
        for (const x of outside) console.log(`    ${x}`);
      }
      for (const f of wireFaults) {
        const o = out.byDeviation.get(f.id);
        const failedChecks = (o?.failed ?? []).map((c) => c.title);
        const failedClauses = [...new Set((o?.failed ?? []).flatMap((c) => c.clauses))].sort();
        proved.set(f.id, provedBy(o?.failed ?? []));
        const harnessErrors = (o?.harnessErrors ?? []).map((c) => `${c.title}: ${c.reason.split('\n')[0]}`);
        wireOutcomes.push({ fault: f.id, clauses: f.clauses, caught: failedChecks.length > 0, failedChecks, failedClauses, ...(harnessErrors.length ? { harnessErrors } : {}) });
        if (harnessErrors.length) console.log(`  ${f.id}: ${harnessErrors.length} HARNESS ERROR (the harness broke; not counted): ${harnessErrors.join('; ')}`);
        if (!failedChecks.length) console.log(`  wire fault ${f.id} MISSED (${f.clauses.join(', ')}; ${o?.ran ?? 0} check(s) ran): ${f.description}`);
      }
    } finally {
      await resolved.close();
    }
    const order = new Map(devs.map((d, i) => [d.id, i]));
    mutations.sort((x, y) => order.get(x.deviation)! - order.get(y.deviation)!);
    const missed = [...mutations.filter((m) => !m.caught).map((m) => m.deviation), ...wireOutcomes.filter((w) => !w.caught).map((w) => w.fault)];
    // The proof of each deviation and wire fault: the checks that caught it and the clauses whose own assertions failed (lib/verdicts.ts).
    if (a.matrix) {
      const rows = [...mutations.map((m) => [m.deviation, { checks: [...m.failedChecks].sort(), clauses: m.failedClauses ?? [], proved: proved.get(m.deviation) ?? {} }]), ...wireOutcomes.map((w) => [w.fault, { checks: [...(w.failedChecks ?? [])].sort(), clauses: w.failedClauses ?? [], proved: proved.get(w.fault) ?? {} }])];
      fs.writeFileSync(a.matrix, JSON.stringify(Object.fromEntries(rows), null, 1) + '\n');
    }
    // Proofs per clause (a whole run only: a partial run leaves most deviations out).
    const whole = !a.only && !a.area;
    const catalogue = loadClauses().filter((c) => !c.retired);
    // --require-proofs: an entry of fixtures/proofs.json proves its clauses only if its test passed in this same run.
    const { record, unconfirmed } = a['require-proofs'] ? confirmedRecord(loadProofRecord(), readUnitPasses()) : { record: loadProofRecord(), unconfirmed: [] };
    const unproven = whole ? unprovenMust(catalogue, clauseProofs(catalogue, devs, { mutations, wireFaults: wireOutcomes }, record)) : [];
    // A harness error anywhere makes the self-test untrustworthy: exit 2, naming it (it never counts as catching a deviation).
    const broken = [...mutations.filter((m) => m.harnessErrors?.length).map((m) => m.deviation), ...wireOutcomes.filter((w) => w.harnessErrors?.length).map((w) => w.fault)];
    const code = broken.length ? 2 : missed.length || !baselineOk || (a['require-proofs'] && (unproven.length || unconfirmed.length)) ? 1 : 0;
    // The first pass wrote into the run folder itself, masked by runPlaywright: not masked again (a second pass's folder is).
    finishRun(run, 'selftest', resolved.target, [], { mutations, ...(wireOutcomes.length ? { wireFaults: wireOutcomes } : {}), ...(secondPass.length ? { secondPass } : {}), exitCode: code }, { masked: MASKED_BY_RUN });
    const total = mutations.length + wireOutcomes.length;
    console.log(`\nselftest: ${total - missed.length} passed, ${missed.length} failed${missed.length ? ` (${missed.join(', ')})` : ''}${wireOutcomes.length ? ` (wire faults: ${wireOutcomes.filter((w) => w.caught).length} of ${wireOutcomes.length} caught)` : ''}${baselineOk ? '' : ' (baseline failed: the checks do not pass without deviations)'}`);
    if (whole) console.log(`selftest: ${unproven.length} MUST clause(s) without a proof${unproven.length ? ` (no assertion of their own failed under any deviation; no partner variant or project test in fixtures/proofs.json): ${unproven.map((c) => c.id).join(', ')}` : ''}${a['require-proofs'] && unproven.length ? ' — --require-proofs: failed' : ''}`);
    if (unconfirmed.length) console.log(`selftest: ${unconfirmed.length} entr${unconfirmed.length === 1 ? 'y' : 'ies'} of fixtures/proofs.json not confirmed: ${readUnitPasses() ? 'their test did not pass in this run' : `no record of this run's unit tests (${UNIT_PASSED_ENV}: npm test sets it)`} — --require-proofs: failed\n${unconfirmed.map((u) => `  ${u}`).join('\n')}`);
    if (secondPass.length) console.log(`selftest: ${secondPass.length} caught on the second pass only (flaky under load: their checks' real-time windows deserve a look): ${secondPass.join(', ')}`);
    if (broken.length) console.log(`selftest: HARNESS ERROR in the checks of ${broken.length} deviation(s) or wire fault(s): ${broken.join(', ')} (exit 2: the harness broke, the self-test proves nothing there)`);
    process.exitCode = code;
  },
};
