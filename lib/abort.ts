// The `signal` option (docs/lifecycle.md, "Cancellation"): a call given an AbortSignal rejects with the signal's reason when
// it is aborted before the call settles. An already-aborted signal rejects at once, with nothing started. Otherwise
// the call gets a native CallAbort (native/core/call_abort.h), which the signal's 'abort' listener requests: a call
// not yet started is dropped, a CPU product stops at its next slice of k, device work runs to its end with its
// result not delivered, and a write into an existing Matrix is withdrawn whole (the Matrix keeps what the
// operations before it made) unless the device had already made it, in which case the call resolves.
import { native } from './native';
import type { NativeCallAbort } from './native';

/** The native layer's rejection for an abort (native/core/call_abort.h, abortedError). */
const ABORTED = 'ERR_CUDA_MATMUL_ABORTED';

/** The calls in flight on one signal, and the one listener that aborts them all. */
interface Watched {
  calls: Set<NativeCallAbort>;
  onAbort(): void;
}

// One listener per signal, however many calls share it (a server's shutdown signal on every call): a listener per
// call made Node warn of a leak past ten.
const watched = new WeakMap<AbortSignal, Watched>();

function watch(signal: AbortSignal, abort: NativeCallAbort): void {
  let entry = watched.get(signal);
  if (!entry) {
    const calls = new Set<NativeCallAbort>();
    entry = { calls, onAbort: () => calls.forEach((call) => call.abort()) };
    signal.addEventListener('abort', entry.onAbort, { once: true });
    watched.set(signal, entry);
  }
  entry.calls.add(abort);
}

function unwatch(signal: AbortSignal, abort: NativeCallAbort): void {
  const entry = watched.get(signal);
  if (!entry?.calls.delete(abort) || entry.calls.size > 0) return;
  signal.removeEventListener('abort', entry.onAbort);
  watched.delete(signal);
}

/** `start(abort)` with `signal` wired to a native abort; `start()` alone without a signal. */
export function abortable<T>(signal: AbortSignal | undefined, start: (abort?: NativeCallAbort) => Promise<T>): Promise<T> {
  if (signal === undefined) return start();
  if (signal.aborted) return Promise.reject(signal.reason);
  const abort = new native.CallAbort();
  watch(signal, abort);
  const settled = () => unwatch(signal, abort);
  let running: Promise<T>;
  try {
    running = start(abort);
  } catch (error) {
    settled();
    return Promise.reject(error);
  }
  return running.then(
    (value) => (settled(), value),
    (error: unknown) => {
      settled();
      throw (error as { code?: unknown } | null)?.code === ABORTED ? signal.reason : error;
    },
  );
}
