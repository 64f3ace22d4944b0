import { describe, expect, it } from 'vitest';
import { snippetParts } from './snippet';

describe('snippetParts', () => {
  it('splits marked matches from plain text', () => {
    expect(snippetParts('a \u0001match\u0002 b \u0001two\u0002')).toEqual([
      { text: 'a ', mark: false },
      { text: 'match', mark: true },
      { text: ' b ', mark: false },
      { text: 'two', mark: true },
    ]);
  });
  it('keeps HTML as text', () => {
    expect(snippetParts('<b>\u0001<script>\u0002')).toEqual([
      { text: '<b>', mark: false },
      { text: '<script>', mark: true },
    ]);
  });
  it('tolerates stray and unclosed markers', () => {
    expect(snippetParts('x\u0002y\u0001z')).toEqual([
      { text: 'xy', mark: false },
      { text: 'z', mark: true },
    ]);
    expect(snippetParts('')).toEqual([]);
  });
});
