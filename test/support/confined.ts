// A container sees its whole host in /sys/devices/system/cpu/online and in the physical memory, whatever its cpuset,
// CPU quota or memory limit. A test stands in for one with a mount namespace whose files say so: a longer online
// list over the real one, a quota or a limit over the file of the process's own cgroup. Needs root (CI and the GPU
// hosts run as root); elsewhere the tests skip, saying why.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runChild, withRoot, type ChildResult } from './child';

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

export interface CgroupFile {
  file: string;
  version: 1 | 2;
  /** The process's own cgroup's, or one above it. */
  own: boolean;
}

/**
 * The files that hold a controller's limit (cgroup v2's name, or v1's) in this process's cgroup and in each cgroup
 * above it, where they exist (the root cgroup of a v2 hierarchy has none), the process's own first.
 */
export function cgroupFiles(controller: string, v2: string, v1: string): CgroupFile[] {
  const found: CgroupFile[] = [];
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, controllers, cgroup] = line.split(':');
    const [root, name, version] = controllers === '' ? ['/sys/fs/cgroup', v2, 2 as const]
      : controllers.split(',').includes(controller) ? [path.join('/sys/fs/cgroup', controllers), v1, 1 as const] : [];
    if (!root || !name || !version) continue;
    for (let level = cgroup; ; level = path.dirname(level)) {
      const file = path.join(root, level, name);
      if (fs.existsSync(file)) found.push({ file, version, own: level === cgroup });
      if (level === '/') break;
    }
  }
  return found;
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
    fs.writeFileSync(scriptFile, withRoot(script));
    const node = [process.execPath, ...flags, scriptFile].map((word) => `'${word}'`).join(' ');
    return runChild('unshare', ['--mount', 'sh', '-c', `${mounts.join(' && ')} && exec ${node}`], env);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
