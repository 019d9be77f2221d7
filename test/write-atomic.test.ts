// writeFileAtomic: a reader sees the old page or the new one whole, never a mix, and nothing is left aside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { writeFileAtomic } from '../lib/write-atomic.js';
import { ROOT } from '../lib/paths.js';

test('four processes rewriting one file at once leave one writer\'s whole content and no file aside', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-atomic-'));
  const file = path.join(dir, 'index.html');
  try {
    // Each writer writes 100 times a 200 kB page of its own letter: a torn write would mix letters.
    const writer = (letter: string) => new Promise<number | null>((resolve) => {
      const code = `import { writeFileAtomic } from ${JSON.stringify(path.join(ROOT, 'lib', 'write-atomic.ts'))};
        for (let i = 0; i < 100; i++) writeFileAtomic(${JSON.stringify(file)}, ${JSON.stringify(letter)}.repeat(200_000));`;
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: 'inherit' }).on('exit', resolve);
    });
    const reads: string[] = [];
    const done = Promise.all(['a', 'b', 'c', 'd'].map(writer));
    let finished = false;
    void done.then(() => { finished = true; });
    while (!finished) {
      if (fs.existsSync(file)) reads.push(fs.readFileSync(file, 'utf8'));
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.deepEqual(await done, [0, 0, 0, 0]);
    reads.push(fs.readFileSync(file, 'utf8'));
    for (const r of reads) assert.ok(r.length === 200_000 && new Set(r).size === 1, `a read saw ${r.length} characters of ${[...new Set(r)].join('')}`);
    assert.deepEqual(fs.readdirSync(dir), ['index.html']);
    writeFileAtomic(file, 'x');
    assert.equal(fs.readFileSync(file, 'utf8'), 'x');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('a file written with a mode has it from its creation, also over a file readable by others (ready files of ces serve, sink, wire)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-atomic-mode-'));
  const file = path.join(dir, 'ready.json');
  fs.writeFileSync(file, 'old', { mode: 0o644 });
  writeFileAtomic(file, '{"api_key":"secret"}', 0o600);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.readFileSync(file, 'utf8'), '{"api_key":"secret"}');
  assert.deepEqual(fs.readdirSync(dir), ['ready.json'], 'nothing left aside');
});
