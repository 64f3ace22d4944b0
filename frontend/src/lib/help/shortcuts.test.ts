import { describe, expect, it } from 'vitest';
import { SHORTCUT_GROUPS, isTyping } from './shortcuts';

describe('isTyping', () => {
  it('is true in text fields only', () => {
    const el = (tagName: string, type = '') => ({ tagName, type, isContentEditable: false }) as unknown as EventTarget;
    expect(isTyping(el('TEXTAREA'))).toBe(true);
    expect(isTyping(el('INPUT', 'text'))).toBe(true);
    expect(isTyping(el('INPUT', 'password'))).toBe(true);
    expect(isTyping(el('SELECT'))).toBe(true);
    expect(isTyping(el('INPUT', 'checkbox'))).toBe(false);
    expect(isTyping(el('INPUT', 'radio'))).toBe(false);
    expect(isTyping(el('BUTTON'))).toBe(false);
    expect(isTyping(null)).toBe(false);
  });
});

describe('the help overlay', () => {
  it('lists the views and the loom keys', () => {
    const titles = SHORTCUT_GROUPS.map((g) => g.title);
    expect(titles).toEqual(['Everywhere', 'Graph', 'Loom', 'Reasoning', 'Knowledge']);
    const everywhere = SHORTCUT_GROUPS[0].shortcuts.map((s) => `${s.keys.join(' ')} ${s.what}`).join('\n');
    expect(everywhere).toContain('W Knowledge view');
    expect(SHORTCUT_GROUPS[4].shortcuts.map((s) => s.keys.join(' '))).toContain('N');
    const loom = SHORTCUT_GROUPS[2].shortcuts.map((s) => s.what).join('\n');
    for (const w of ['Generate', 'Next sibling', 'Previous sibling', 'Parent', 'Child', 'Bookmark', 'Prune', 'Edit', 'history']) {
      expect(loom).toContain(w);
    }
  });

  it('lists the reasoning keys: nodes by arrows, the history by [ and ]', () => {
    const r = SHORTCUT_GROUPS[3].shortcuts.map((s) => `${s.keys.join(' ')} ${s.what}`).join('\n');
    for (const w of ['← ↑ → ↓', 'Enter Open', 'Esc Close', '[ History', '] History', 'Apply', 'Export']) expect(r).toContain(w);
    expect(SHORTCUT_GROUPS[0].shortcuts.map((s) => s.keys.join(' '))).toContain('R');
  });

  it('lists the graph keys for working without a mouse', () => {
    const graph = SHORTCUT_GROUPS[1].shortcuts.map((s) => `${s.keys.join(' ')} ${s.what}`).join('\n');
    for (const w of ['Tab', '→ ↓', 'connected node', 'Enter Open', 'node list']) expect(graph).toContain(w);
  });

  it('lists linking and mentions', () => {
    const all = SHORTCUT_GROUPS[0].shortcuts.map((s) => `${s.keys.join(' ')} ${s.what}`).join('\n');
    expect(all).toContain('K Link the selected node or loom node');
    expect(all).toContain('[ [ In a note or loom text: mention an item');
    const loom = SHORTCUT_GROUPS[2].shortcuts.map((s) => s.keys.join(' ')).join('\n');
    expect(loom).not.toMatch(/\bK\b/); // K links, in the loom too
  });
});
