import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../../src/http/admission-gate.ts';

/** Lets queued promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('AdmissionGate', () => {
  it('lets `limit` in, then the others in arrival order as places are given back', async () => {
    const gate = new AdmissionGate(2);
    const admitted: number[] = [];
    const leaves: Array<() => void> = [];
    for (let i = 0; i < 5; i++) {
      void gate.enter().then((leave) => {
        admitted.push(i);
        leaves[i] = leave;
      });
    }
    await settle();
    expect(admitted).toEqual([0, 1]);
    expect([gate.inside, gate.waiting]).toEqual([2, 3]);

    leaves[1]?.();
    leaves[1]?.(); // a second call gives nothing back
    await settle();
    expect(admitted).toEqual([0, 1, 2]);
    expect([gate.inside, gate.waiting]).toEqual([2, 2]);

    leaves[0]?.();
    leaves[2]?.();
    await settle();
    expect(admitted).toEqual([0, 1, 2, 3, 4]);
    leaves[3]?.();
    leaves[4]?.();
    expect([gate.inside, gate.waiting]).toEqual([0, 0]);
  });

  it('drops a waiter whose signal aborts, which then holds no place', async () => {
    const gate = new AdmissionGate(1);
    const first = await gate.enter();
    const gone = new AbortController();
    let abandonedAt: number | null = null;
    const abandoned = gate.enter(gone.signal).then((leave) => {
      abandonedAt = gate.waiting;
      return leave;
    });
    const next = gate.enter();
    await settle();
    expect(gate.waiting).toBe(2);

    gone.abort();
    (await abandoned)(); // its leave does nothing
    expect(abandonedAt).toBe(1);
    expect([gate.inside, gate.waiting]).toEqual([1, 1]);

    first();
    const second = await next;
    expect([gate.inside, gate.waiting]).toEqual([1, 0]);
    second();
    expect(gate.inside).toBe(0);
    // Aborted before asking: let through at once, holding nothing.
    const late = await gate.enter(AbortSignal.abort());
    late();
    expect(gate.inside).toBe(0);
  });

  it('never has more than `limit` inside, admits in order and ends empty, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom('enter', 'enter-abortable', 'leave', 'abort'), { maxLength: 60 }),
        async (limit, steps) => {
          const gate = new AdmissionGate(limit);
          let inside = 0;
          let maxInside = 0;
          const admittedOrder: number[] = [];
          const held: Array<() => void> = [];
          const abortable: AbortController[] = [];
          const abandoned = new Set<number>();
          let asked = 0;
          const ask = (controller?: AbortController) => {
            const id = asked++;
            void gate.enter(controller?.signal).then((leave) => {
              if (controller?.signal.aborted) {
                abandoned.add(id);
                leave();
                return;
              }
              inside++;
              maxInside = Math.max(maxInside, inside);
              admittedOrder.push(id);
              held.push(() => {
                inside--;
                leave();
              });
            });
          };
          for (const step of steps) {
            if (step === 'enter') ask();
            else if (step === 'enter-abortable') {
              const controller = new AbortController();
              abortable.push(controller);
              ask(controller);
            } else if (step === 'leave') held.shift()?.();
            else abortable.shift()?.abort();
            await settle();
          }
          for (const c of abortable) c.abort();
          for (;;) {
            await settle();
            const leave = held.shift();
            if (!leave) break;
            leave();
          }
          expect(maxInside).toBeLessThanOrEqual(limit);
          expect(admittedOrder).toEqual([...admittedOrder].sort((a, b) => a - b));
          expect(admittedOrder.length + abandoned.size).toBe(asked);
          expect([gate.inside, gate.waiting]).toEqual([0, 0]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a limit below one', () => {
    expect(() => new AdmissionGate(0)).toThrow(/positive integer/);
  });
});
