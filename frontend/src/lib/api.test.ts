import { describe, expect, it, vi } from 'vitest';
import {
  activePath,
  buildRequest,
  createApi,
  detectTransport,
  httpTransport,
  isExternalURL,
  pageToken,
  readResponse,
  wailsTransport,
} from './api';

const json = (status: number, body: unknown) =>
  new Response(body === undefined ? '' : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('serve mode requests', () => {
  it('POSTs the arguments as a JSON array with the token', () => {
    const { url, init } = buildRequest('Graph', 'Graph', [{ project: '/p' }], 'a b&c');
    expect(url).toBe('/api/Graph/Graph?token=a%20b%26c');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('[{"project":"/p"}]');
    expect(buildRequest('Import', 'ImportSamples', [], 't').init.body).toBe('[]');
  });

  it('maps {"error"} to an Error with its text', async () => {
    await expect(readResponse(json(400, { error: 'import: bad.jsonl line 3: not JSON' }), 'Import.ImportFiles')).rejects.toThrow(
      /^import: bad.jsonl line 3: not JSON$/,
    );
    await expect(readResponse(new Response('boom', { status: 500 }), 'X.Y')).rejects.toThrow('boom');
    await expect(readResponse(json(403, {}), 'X.Y')).rejects.toThrow('X.Y: HTTP 403');
  });

  it('returns the JSON result, null when empty', async () => {
    expect(await readResponse(json(200, [1, 2]), 'X.Y')).toEqual([1, 2]);
    expect(await readResponse(json(200, undefined), 'X.Y')).toBeNull();
    expect(await readResponse(json(200, null), 'X.Y')).toBeNull();
  });

  it('calls through fetch and hands on the result as Go sent it', async () => {
    const fetch = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) =>
      json(200, String(init?.body) === '[{}]' ? { nodes: [], edges: [] } : []),
    );
    const api = createApi(() => httpTransport({ token: 'tok', fetch: fetch as typeof globalThis.fetch }));
    expect(await api.projects()).toEqual([]);
    expect(await api.graph({})).toEqual({ nodes: [], edges: [] });
    await api.search('x', 20);
    expect(fetch.mock.calls[2][0]).toBe('/api/Search/Query?token=tok');
    expect(fetch.mock.calls[2][1]?.body).toBe('["x",20]');
  });

  it('says when the server cannot be reached', async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const api = createApi(() => httpTransport({ token: 't', fetch: fetch as never }));
    await expect(api.stats()).rejects.toThrow('Library.Stats: cannot reach rhizome serve (Failed to fetch)');
  });

  it('shares one EventSource and parses event data', () => {
    const listeners = new Map<string, (e: MessageEvent) => void>();
    const source = {
      addEventListener: (t: string, l: (e: MessageEvent) => void) => listeners.set(t, l),
      removeEventListener: (t: string) => listeners.delete(t),
      close: vi.fn(),
    };
    const make = vi.fn(() => source);
    const transport = httpTransport({ token: 't', eventSource: make });
    const api = createApi(() => transport);
    const got: unknown[] = [];
    const off1 = api.on('import:progress', (p) => got.push(p));
    const off2 = api.on('library:changed', (p) => got.push(p));
    expect(make).toHaveBeenCalledTimes(1);
    expect(make).toHaveBeenCalledWith('/api/events?token=t');
    listeners.get('import:progress')!({ data: '{"bytesDone":5}' } as MessageEvent);
    listeners.get('library:changed')!({ data: 'null' } as MessageEvent);
    expect(got).toEqual([{ bytesDone: 5 }, null]);
    off1();
    off2();
    expect(source.close).toHaveBeenCalled();
  });
});

describe('window mode', () => {
  it('calls the Wails bindings and turns rejections into Errors', async () => {
    const win = {
      go: {
        app: {
          Library: { Sessions: vi.fn(async (p: unknown) => [{ id: 's', project: p }]) },
          Graph: { Node: vi.fn(async () => Promise.reject('graph: no node "x"')) },
        },
      },
      runtime: { EventsOn: vi.fn(() => () => {}) },
    };
    const api = createApi(() => wailsTransport(win as never));
    expect(api.mode).toBe('window');
    expect(await api.sessions('/p')).toEqual([{ id: 's', project: '/p' }]);
    await expect(api.node('x')).rejects.toThrow('graph: no node "x"');
    await expect(api.stats()).rejects.toThrow('Library.Stats: not bound in this window');
  });

  it('detects the mode from window.go', () => {
    expect(detectTransport({ go: { app: {} } } as never).mode).toBe('window');
    expect(detectTransport({ location: { search: '?token=abc' } } as never).mode).toBe('serve');
  });
});

describe('isExternalURL', () => {
  it('allows only http(s) and mailto', () => {
    expect(isExternalURL('https://example.com')).toBe(true);
    expect(isExternalURL('mailto:a@b.c')).toBe(true);
    expect(isExternalURL('javascript:alert(1)')).toBe(false);
    expect(isExternalURL(' JavaScript:alert(1)')).toBe(false);
    expect(isExternalURL('file:///etc/passwd')).toBe(false);
  });
});

describe('loom and settings calls', () => {
  const calls: { url: string; body: unknown }[] = [];
  const reply = (body: unknown) =>
    vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
      calls.push({ url: String(url), body: JSON.parse(String(init?.body)) });
      return json(200, body);
    });

  it('sends the contract arguments in order', async () => {
    calls.length = 0;
    const api = createApi(() => httpTransport({ token: 't', fetch: reply(null) as never }));
    await api.loom.listTrees(true);
    await api.loom.activePathView('T', { nodeId: 'n', versions: {} }, 'semantic');
    await api.loom.generate({ treeId: 'T', activePath: { nodeId: '', versions: { f: 'v' } }, n: 0, requestId: 'r' });
    await api.loom.diff('T', 'a', 'b', 'word');
    await api.loom.setBookmark('T', 'n', true);
    await api.settings.setLLM({ provider: 'openai', baseUrl: '', model: 'm', temperature: null, maxTokens: 0, n: 3, noStream: false });
    await api.nodeDiff('node', 1, 2);
    expect(calls.map((c) => c.url)).toEqual([
      '/api/Loom/ListTrees?token=t',
      '/api/Loom/ActivePathView?token=t',
      '/api/Loom/Generate?token=t',
      '/api/Loom/Diff?token=t',
      '/api/Loom/SetBookmark?token=t',
      '/api/Settings/SetLLM?token=t',
      '/api/Graph/NodeDiff?token=t',
    ]);
    expect(calls[1].body).toEqual(['T', { nodeId: 'n' }, 'semantic']);
    expect(calls[2].body).toEqual([{ treeId: 'T', activePath: { nodeId: '', versions: { f: 'v' } }, n: 0, requestId: 'r' }]);
    expect(calls[3].body).toEqual(['T', 'a', 'b', 'word']);
    expect(calls[4].body).toEqual(['T', 'n', true, '']);
    expect(calls[6].body).toEqual(['node', 1, 2]);
  });

  it('hands on what Go sends, and sends active paths with versions only when there are some', async () => {
    const tree = { tree: { id: 'T' }, nodes: [{ id: 'n', children: [], parentIds: [] }], branchPoints: [], leaves: [], activePath: { nodeId: 'n' } };
    const t = await createApi(() => httpTransport({ token: 't', fetch: reply(tree) as never })).loom.tree('T');
    expect(t).toEqual(tree);
    expect(activePath({ nodeId: 'x', versions: {} })).toEqual({ nodeId: 'x' });
    expect(activePath({ nodeId: 'x', versions: { a: 'b' } })).toEqual({ nodeId: 'x', versions: { a: 'b' } });
    expect(activePath(undefined)).toEqual({ nodeId: '' });
  });

  it('delivers loom events by name', () => {
    const listeners = new Map<string, (e: MessageEvent) => void>();
    const source = {
      addEventListener: (t: string, l: (e: MessageEvent) => void) => listeners.set(t, l),
      removeEventListener: (t: string) => listeners.delete(t),
      close: vi.fn(),
    };
    const api = createApi(() => httpTransport({ token: 't', eventSource: () => source }));
    const got: string[] = [];
    api.on('loom:delta', (d) => got.push(`${d.index}:${d.text}`));
    api.on('settings:changed', () => got.push('settings'));
    listeners.get('loom:delta')!({ data: '{"requestId":"r","index":2,"text":"moss"}' } as MessageEvent);
    listeners.get('settings:changed')!({ data: 'null' } as MessageEvent);
    expect(got).toEqual(['2:moss', 'settings']);
  });
});

describe('the serve token', () => {
  /** A window whose address is href, with a session storage and a history. */
  const fakeWindow = (href: string, storage: Map<string, string> | null = new Map()) => {
    const u = new URL(href);
    const replaced: string[] = [];
    const win = {
      location: { href, search: u.search, pathname: u.pathname, hash: u.hash },
      history: { state: { s: 1 }, replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) },
      get sessionStorage() {
        if (!storage) throw new DOMException('denied', 'SecurityError');
        return {
          getItem: (k: string) => storage.get(k) ?? null,
          setItem: (k: string, v: string) => void storage.set(k, v),
        };
      },
    };
    return { win, replaced, storage };
  };

  it('leaves the address bar and stays in the tab', () => {
    const { win, replaced, storage } = fakeWindow('http://127.0.0.1:5/?token=abc&view=loom#n1');
    expect(pageToken(win as never)).toBe('abc');
    expect(replaced).toEqual(['/?view=loom#n1']);
    // A reload: the address has no token, the tab's storage has it.
    const again = fakeWindow('http://127.0.0.1:5/?view=loom', storage);
    expect(pageToken(again.win as never)).toBe('abc');
    expect(again.replaced).toEqual([]);
  });

  it('stays in the address bar when the tab cannot keep it', () => {
    const { win, replaced } = fakeWindow('http://127.0.0.1:5/?token=abc', null);
    expect(pageToken(win as never)).toBe('abc');
    expect(replaced).toEqual([]);
  });

  it('is empty without one', () => {
    expect(pageToken(fakeWindow('http://127.0.0.1:5/').win as never)).toBe('');
  });
});

describe('dropped files', () => {
  it('are streamed to /api/upload as multipart form data in serve mode', async () => {
    const fetch = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) =>
      json(200, { files: [{ path: 'b.jsonl', status: 'imported' }], totals: { files: 0 } }),
    );
    const api = createApi(() => httpTransport({ token: 't k', fetch: fetch as never }));
    const rep = await api.importDropped([
      { file: new File(['{"type":"session"}\n'], 'b.jsonl'), name: 'dir/b.jsonl' },
      { file: new File(['x'], 'c.jsonl'), name: 'c.jsonl' },
    ]);
    expect(rep.files).toEqual([{ path: 'b.jsonl', status: 'imported' }]);
    expect(rep.totals.files).toBe(0);
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe('/api/upload?token=t%20k');
    expect(init?.method).toBe('POST');
    const form = init?.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    const parts = form.getAll('file') as File[];
    expect(parts.map((f) => f.name)).toEqual(['dir/b.jsonl', 'c.jsonl']);
    expect(await parts[0].text()).toBe('{"type":"session"}\n');
  });

  it('go to Import.ImportFiles as base64 in the window', async () => {
    const ImportFiles = vi.fn(async () => ({ files: [], totals: null }));
    const api = createApi(() => wailsTransport({ go: { app: { Import: { ImportFiles } } } } as never));
    await api.importDropped([{ file: new File(['hi'], 'a.jsonl'), name: 'a.jsonl' }]);
    expect(ImportFiles).toHaveBeenCalledWith([{ name: 'a.jsonl', content: 'aGk=' }]);
  });
});

describe('segment entries', () => {
  it('ask for a page', async () => {
    const fetch = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => json(200, { entries: [], offset: 100, total: 691 }));
    const api = createApi(() => httpTransport({ token: 't', fetch: fetch as never }));
    expect(await api.segmentEntries('n1', 100)).toEqual({ entries: [], offset: 100, total: 691 });
    expect(fetch.mock.calls[0][0]).toBe('/api/Library/SegmentEntries?token=t');
    expect(fetch.mock.calls[0][1]?.body).toBe('["n1",100,0]');
  });
});
