/**
 * The benchmark's fairness check (bench/lib/equivalence.js): it must let through only answers equal
 * to the API's, status and body as text, with one view more on a slug read.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compareAnswers } = require('../bench/lib/equivalence') as {
  compareAnswers(ours: Answer, floor: Answer, options?: { viewCounted?: boolean }): string[];
};

interface Answer {
  status: number;
  text: string;
}

const blogAnswer = (viewsCount: number, title = 'A title') => ({
  status: 200,
  text: JSON.stringify({
    blog: { _id: '5f0000000000000000000001', title, viewsCount, likesCount: 2, likedByMe: false },
  }),
});

describe('the floor equivalence check', () => {
  it('accepts identical answers', () => {
    const answer = { status: 200, text: '{"user":{"_id":"1","username":"a"}}' };
    expect(compareAnswers(answer, { ...answer })).toEqual([]);
  });

  it('refuses another status, another value, and the same fields in another order', () => {
    expect(compareAnswers({ status: 200, text: '{}' }, { status: 404, text: '{}' })).toEqual([
      'status: ours 200, floor 404',
    ]);
    expect(compareAnswers({ status: 200, text: '{"a":1}' }, { status: 200, text: '{"a":2}' })).toEqual([
      expect.stringMatching(/^body differs at character 5/),
    ]);
    expect(compareAnswers({ status: 200, text: '{"a":1,"b":2}' }, { status: 200, text: '{"b":2,"a":1}' })).toHaveLength(
      1,
    );
  });

  it('expects exactly one view more from the floor on a slug read, and nothing else different', () => {
    expect(compareAnswers(blogAnswer(7), blogAnswer(8), { viewCounted: true })).toEqual([]);
    expect(compareAnswers(blogAnswer(7), blogAnswer(7), { viewCounted: true })).toEqual([
      'viewsCount: ours 7, floor 7 (expected 8)',
    ]);
    expect(compareAnswers(blogAnswer(7), blogAnswer(8, 'Another title'), { viewCounted: true })).toEqual([
      expect.stringMatching(/^body differs/),
    ]);
  });
});
