// The window's views (Graph, Loom; later Reasoning, Patterns): which one is
// shown, and what each brings. A view is a feature folder that registers a
// ViewSpec (views/registry.ts lists them): its tab and shortcut, its
// sidebar and main components, the keys it handles, and what files dropped
// on the window while it is shown are (its Intake). App.svelte draws them
// from here.

import type { Component } from 'svelte';
import type { Intake } from '../import/intake';

/** The views, by the name each registers. */
export type ViewName = 'graph' | 'loom' | 'reasoning' | 'knowledge' | 'memory' | 'patterns';

export interface ViewSpec {
  name: ViewName;
  /** The tab's text. */
  label: string;
  /** The key that shows the view from anywhere (lower case; help/shortcuts.ts lists it). */
  key: string;
  /** The tab's tooltip, with the key. */
  title: string;
  testid: string;
  side: Component;
  main: Component;
  /** In the top bar: what the view holds (counts). */
  status: Component;
  /** In the top bar before Settings: the view's own buttons. */
  actions?: Component;
  /** The view's dialogs, drawn whichever view is shown (each shows itself when open). */
  dialogs?: Component;
  /** Files dropped on the window or picked while the view is shown. */
  intake: Intake;
  /** The main component stays mounted, hidden, while another view is shown (the graph keeps its camera). */
  keepMounted?: boolean;
  /** A third column at the right (the graph's node panel), drawn while panelOpen() holds. */
  panel?: Component;
  panelOpen?: () => boolean;
  /** Called each time the view is shown. */
  onshow?: () => void;
  /**
   * The view's keys while it is shown and no dialog is open, before the
   * window's own; whether the key was one (the view leaves keys typed into
   * a field alone, except those it means to take there, as Alt+G).
   */
  onkey?: (e: KeyboardEvent) => boolean;
  /** Whether one of the view's dialogs is open (the window's keys wait), shown or not. */
  modal?: () => boolean;
  /** Esc: closes the view's topmost dialog or editor, above the window's floating panels; whether there was one. */
  closeDialog?: () => boolean;
  /** Esc, when nothing else was open: lets go of the view's selection; whether there was one. */
  clearSelection?: () => boolean;
}

class Views {
  all = $state.raw<ViewSpec[]>([]);
  current = $state<ViewName>('graph');
  active = $derived(this.all.find((v) => v.name === this.current) ?? this.all[0]);

  register(...specs: ViewSpec[]) {
    this.all = [...this.all, ...specs.filter((s) => !this.all.some((v) => v.name === s.name))];
  }

  show(name: ViewName) {
    this.current = name;
    this.all.find((v) => v.name === name)?.onshow?.();
  }

  /** The view shown by key (as typed: 'l' shows the loom, 'L' is the graph's layout switch). */
  byKey(key: string): ViewSpec | undefined {
    return this.all.find((v) => v.key === key);
  }
}

export const views = new Views();
