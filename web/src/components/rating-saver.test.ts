import { describe, expect, it } from 'vitest';
import { nextRating, type Rating, RatingSaver } from './rating-saver';

/** A save the test answers by hand, in order. */
function manualService() {
  const calls: { rating: Rating; resolve: (rating: Rating) => void; reject: (error: Error) => void }[] = [];
  const save = (rating: Rating) =>
    new Promise<Rating>((resolve, reject) => {
      calls.push({ rating, resolve, reject });
    });
  return { calls, save };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('nextRating', () => {
  it('sets the pressed thumb, switches from the other, and clears the pressed one', () => {
    expect(nextRating(null, 'up')).toBe('up');
    expect(nextRating('down', 'up')).toBe('up');
    expect(nextRating('up', 'up')).toBeNull();
    expect(nextRating('down', 'down')).toBeNull();
  });
});

describe('RatingSaver', () => {
  it('saves a choice', async () => {
    const service = manualService();
    const failures: Rating[] = [];
    const saver = new RatingSaver(null, service.save, {
      failed: (_error, restored) => failures.push(restored),
    });
    saver.choose('up');
    expect(service.calls.map((call) => call.rating)).toEqual(['up']);
    service.calls[0]?.resolve('up');
    await settle();
    expect(service.calls).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('sends one request at a time, then only the last choice made meanwhile', async () => {
    const service = manualService();
    const saver = new RatingSaver(null, service.save, { failed: () => {} });
    saver.choose('up');
    saver.choose('down');
    saver.choose(null);
    saver.choose('down');
    expect(service.calls.map((call) => call.rating)).toEqual(['up']);
    service.calls[0]?.resolve('up');
    await settle();
    expect(service.calls.map((call) => call.rating)).toEqual(['up', 'down']);
    service.calls[1]?.resolve('down');
    await settle();
    expect(service.calls).toHaveLength(2);
  });

  it('sends nothing more when the choices made meanwhile end where the service is', async () => {
    const service = manualService();
    const saver = new RatingSaver('up', service.save, { failed: () => {} });
    saver.choose(null);
    saver.choose('up');
    saver.choose(null);
    service.calls[0]?.resolve(null);
    await settle();
    expect(service.calls.map((call) => call.rating)).toEqual([null]);
    // Pressing again (up: a new choice) after it settled is a new request.
    saver.choose('up');
    expect(service.calls.map((call) => call.rating)).toEqual([null, 'up']);
  });

  it('reports a failure with the rating last stored, and drops the choices waiting', async () => {
    const service = manualService();
    const failures: [string, Rating][] = [];
    const saver = new RatingSaver('down', service.save, {
      failed: (error, restored) => failures.push([(error as Error).message, restored]),
    });
    saver.choose('up');
    saver.choose(null);
    service.calls[0]?.reject(new Error('unavailable'));
    await settle();
    expect(failures).toEqual([['unavailable', 'down']]);
    expect(service.calls).toHaveLength(1);
    // It can be tried again.
    saver.choose('up');
    expect(service.calls.map((call) => call.rating)).toEqual(['up', 'up']);
  });
});
