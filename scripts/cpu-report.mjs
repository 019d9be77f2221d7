// Preloaded into each unit-test process by scripts/unit-tests.mjs (NODE_OPTIONS --import): at its exit, writes the CPU seconds of the process and of the child processes it waited for to CES_CPU_REPORT_DIR, named by its test file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.CES_CPU_REPORT_DIR;
/** How NODE_OPTIONS may name this file (scripts/unit-tests.mjs gives `--import=<its file URL>`). */
const named = new RegExp(`--import[= ](?:${[import.meta.url, fileURLToPath(import.meta.url)].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?=\\s|$)`, 'g');
if (dir && isMainThread) {
  // Only the test process itself: the processes it starts (ces, Playwright, servers) are counted through it (their CPU is its
  // children's once it waited for them), not reported again.
  delete process.env.CES_CPU_REPORT_DIR;
  // Taken off NODE_OPTIONS, which they inherit: preloading an ES module costs each of them about 30 ms of CPU (a CommonJS main
  // module, as Playwright's runner and workers, then goes through the ES module loader).
  process.env.NODE_OPTIONS = (process.env.NODE_OPTIONS ?? '').replace(named, '').replace(/\s+/g, ' ').trim();
  const file = process.argv[1] ?? '';
  process.on('exit', () => {
    try { fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ file, ...cpuSeconds() })); } catch { /* the runner is gone */ }
  });
}

/**
 * Linux: /proc/self/stat's utime, stime (this process, its threads included) and cutime, cstime (the children it waited for, and
 * theirs), in clock ticks of 1/100 s (USER_HZ). Elsewhere: this process alone (`children` undefined).
 */
function cpuSeconds() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime field 14.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = (i) => Number(f[i - 3]) / 100;
    return { self: tick(14) + tick(15), children: tick(16) + tick(17) };
  } catch {
    const u = process.resourceUsage();
    return { self: (u.userCPUTime + u.systemCPUTime) / 1e6, children: undefined };
  }
}
