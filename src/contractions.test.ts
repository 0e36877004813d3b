import { describe, expect, it } from 'vitest';
import { withoutContractions } from './contractions.js';

describe('withoutContractions', () => {
  it('spells out the contractions whose halves would be searched as words', () => {
    expect(withoutContractions("I'm using a transport but it doesn't log. Why isn't it?")).toBe(
      'I am using a transport but it does not log. Why is not it?',
    );
    expect(withoutContractions('We’re sure you’ll see what they’ve done, I’d say')).toBe(
      'We are sure you will see what they have done, I would say',
    );
  });

  it('reads can’t, won’t and shan’t as their verbs', () => {
    expect(withoutContractions("It can't, it won't, we shan't. Can't we?")).toBe(
      'It can not, it will not, we shall not. Can not we?',
    );
  });

  it("drops the possessive 's and leaves quoted words alone", () => {
    expect(withoutContractions("What's Fastify's default for 'debug' and 'severity'?")).toBe(
      "What is Fastify default for 'debug' and 'severity'?",
    );
  });
});
