import assert from 'node:assert/strict';
import { test } from 'node:test';
import { regexRisk } from '../../src/core/regex-risk.js';

test('the shapes of exponential backtracking are refused, each saying which', () => {
  for (const [source, why] of [
    ['^(x+x+)+y$', /repeats a group that itself repeats, \(x\+x\+\)\+/],
    ['(a*)*', /itself repeats/],
    ['(?:x+)+', /itself repeats/],
    ['(?<n>a+)+', /itself repeats/],
    ['((ab)*c)+', /itself repeats/],
    ['(a+){2,}', /itself repeats/],
    ['(a|aa)+', /alternatives can match the same text/],
    ['(\\w|\\d)+', /alternatives can match the same text/],
    ['(Yes|yes)*', /alternatives can match the same text/],
    ['(a+)\\1', /backreference/],
    ['(?<w>a)\\k<w>', /backreference/],
  ] as const)
    assert.match(regexRisk(source) ?? 'accepted', why, source);
});

test('ordinary patterns are taken', () => {
  for (const source of [
    '^Sign (in|up)$',
    '(Yes|No)+',
    'x+y',
    '[(]+',
    '\\(a+\\)+',
    '(ab)+',
    '(a+)?',
    '(a+){1}',
    'colou?r',
    '^Item \\d+$',
    '[a-z]+(\\s[a-z]+)?',
  ])
    assert.equal(regexRisk(source), undefined, source);
});
