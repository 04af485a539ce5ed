// A container sees its whole host in /sys/devices/system/cpu/online and in the physical memory, whatever its cpuset,
// CPU quota or memory limit. A test stands in for one with a mount namespace whose files say so: a longer online
// list over the real one, a quota or a limit over the file of the process's own cgroup. Needs root (CI and the GPU
// hosts run as root); elsewhere the tests skip, saying why.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { packageRoot, type ChildResult } from './child';

/** A file to stand in for, and what it says instead. */
export type StandIn = [file: string, content: string];

/** Why a test cannot confine a child process here, or undefined where it can. */
export const confinement: string | undefined = (() => {
  if (process.platform !== 'linux') return 'needs Linux';
  const probe = spawnSync('unshare', ['--mount', 'true']);
  return probe.status === 0 ? undefined : `needs a mount namespace (unshare --mount: ${probe.error?.message ?? probe.stderr.toString().trim()})`;
})();

/** An online list of more CPUs than this process may run on. */
export const manyOnline: StandIn = ['/sys/devices/system/cpu/online', `0-${4 * os.availableParallelism() + 15}\n`];

/**
 * The file of this process's own cgroup that holds a controller's limit, cgroup v2's name or v1's, or undefined
 * where neither exists (the root cgroup of a hierarchy has none).
 */
export function cgroupFile(controller: string, v2: string, v1: string): { file: string; version: 1 | 2 } | undefined {
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, controllers, cgroup] = line.split(':');
    if (controllers === '') {
      const file = path.join('/sys/fs/cgroup', cgroup, v2);
      if (fs.existsSync(file)) return { file, version: 2 };
    } else if (controllers.split(',').includes(controller)) {
      const file = path.join('/sys/fs/cgroup', controllers, cgroup, v1);
      if (fs.existsSync(file)) return { file, version: 1 };
    }
  }
  return undefined;
}

/** Runs `script` as runScenario does (`ROOT` is the package), with each file's stand-in mounted over it. */
export function runConfined(script: string, standIns: StandIn[], env: NodeJS.ProcessEnv = {}, flags: string[] = []): ChildResult {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'confined-'));
  try {
    const mounts = standIns.map(([file, content], i) => {
      const standIn = path.join(directory, `file-${i}`);
      fs.writeFileSync(standIn, content);
      return `mount --bind '${standIn}' '${file}'`;
    });
    const scriptFile = path.join(directory, 'script.js');
    fs.writeFileSync(scriptFile, `const ROOT = ${JSON.stringify(packageRoot)};\n${script}`);
    const node = [process.execPath, ...flags, scriptFile].map((word) => `'${word}'`).join(' ');
    const started = performance.now();
    const result = spawnSync('unshare', ['--mount', 'sh', '-c', `${mounts.join(' && ')} && exec ${node}`], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return { status: result.status, signal: result.signal, output: `${result.stdout}${result.stderr}`, seconds: (performance.now() - started) / 1000 };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
