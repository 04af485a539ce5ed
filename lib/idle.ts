// What the native pools keep between calls (device memory, page-locked staging buffers, the memory of collected
// results) is given back once idle, by a timer that the first call of any kind starts (a program that only
// loads the package runs none). Unref'd: it never keeps a process or Worker alive.
import { native } from './native';

const IDLE_SECONDS = 2;
let trimming: NodeJS.Timeout | undefined;

export function startIdleTrimming(): void {
  // On the thread pool (freeing waits for the device); one that cannot run (its environment stopping) leaves
  // the pools to the next.
  trimming ??= setInterval(() => native.trimIdle(IDLE_SECONDS).catch(() => undefined), IDLE_SECONDS * 1000).unref();
}
