// @ts-check
/**
 * The fairness check: before anything is measured, the floor must answer every read the way the API
 * does — the same status and the same JSON body, compared as text (so key order counts too). The one
 * allowed difference is the view counter of a blog read by slug, which each read moves by one: the
 * floor, asked right after the API, must show exactly one view more.
 */
'use strict';

/**
 * The differences between the API's answer and the floor's, as readable lines; empty when equivalent.
 * @param {{status: number, text: string}} ours
 * @param {{status: number, text: string}} floor
 * @param {{viewCounted?: boolean}} [options] viewCounted: a slug read, asked of ours first and then of the floor
 */
function compareAnswers(ours, floor, options = {}) {
  const problems = [];
  if (ours.status !== floor.status) problems.push(`status: ours ${ours.status}, floor ${floor.status}`);
  let floorText = floor.text;
  if (options.viewCounted && ours.status === 200 && floor.status === 200) {
    const oursViews = JSON.parse(ours.text).blog?.viewsCount;
    const floorBody = JSON.parse(floor.text);
    const floorViews = floorBody.blog?.viewsCount;
    if (floorViews !== oursViews + 1)
      problems.push(`viewsCount: ours ${oursViews}, floor ${floorViews} (expected ${oursViews + 1})`);
    floorText = floor.text.replace(`"viewsCount":${floorViews},`, `"viewsCount":${oursViews},`);
  }
  if (ours.text !== floorText) problems.push(`body differs ${firstDifference(ours.text, floorText)}`);
  return problems;
}

/** Where two texts part, with a little context, so a failed check says what to fix. */
function firstDifference(a, b) {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  const from = Math.max(0, index - 60);
  return `at character ${index}: ours …${a.slice(from, index + 60)}… floor …${b.slice(from, index + 60)}…`;
}

module.exports = { compareAnswers };
