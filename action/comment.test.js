// Tests of the action's comment logic (comment.js) against fake events
// (testdata/*.json, as GitHub sends them, trimmed) and a fake GitHub API
// that records the calls: node --test action/ (make test).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const icount = require('./comment.js');

const testdata = path.join(__dirname, 'testdata');

// event is the context github-script gives for the event in testdata.
function event(name) {
  const payload = JSON.parse(fs.readFileSync(path.join(testdata, `${name}.json`), 'utf8'));
  return { payload, repo: { owner: payload.repository.owner.login, repo: payload.repository.name } };
}

// fakeGitHub answers the calls comment.js makes from the comments and
// pull requests given, pages of two (paginate gathers them), and records
// each call; fail makes a call throw an error with that HTTP status.
function fakeGitHub({ comments = [], pulls = [], fail = {} } = {}) {
  const calls = [];
  const answer = (name, params, data) => {
    calls.push({ name, params });
    if (fail[name]) {
      const e = new Error(`HTTP ${fail[name]}`);
      e.status = fail[name];
      throw e;
    }
    return { data };
  };
  const pages = (items, page) => items.slice(2 * (page - 1), 2 * page);
  const github = {
    calls,
    paginate: async (fn, params) => {
      const all = [];
      for (let page = 1; ; page++) {
        const { data } = await fn({ ...params, page });
        all.push(...data);
        if (data.length < 2) return all;
      }
    },
    rest: {
      issues: {
        listComments: async (p) => answer('listComments', p, pages(comments, p.page)),
        createComment: async (p) => answer('createComment', p, { id: 900 }),
        updateComment: async (p) => answer('updateComment', p, {}),
      },
      pulls: {
        list: async (p) => answer('pulls.list', p, pages(pulls, p.page)),
      },
    },
  };
  return github;
}

// fakeCore records what the step says.
function fakeCore() {
  const said = [];
  const say = (kind) => (msg) => said.push(`${kind}: ${msg}`);
  return { said, info: say('info'), notice: say('notice'), warning: say('warning') };
}

const dir = path.join(testdata, 'report-regression');
const report = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');

test('a pull request without an icount comment gets one', async () => {
  const github = fakeGitHub({ comments: [{ id: 1, body: 'LGTM' }, { id: 2, body: 'a quote of <!-- icount --> later' }] });
  const core = fakeCore();
  await icount.run({ github, context: event('pull_request'), core, dir });
  const create = github.calls.find((c) => c.name === 'createComment');
  assert.ok(create, JSON.stringify(github.calls));
  assert.deepStrictEqual(create.params, { owner: 'acme', repo: 'widget', issue_number: 42, body: `${icount.MARKER}\n${report}` });
  assert.ok(!github.calls.some((c) => c.name === 'updateComment'));
  assert.deepStrictEqual(core.said, ['info: icount: created comment 900 on pull request #42']);
});

test('the icount comment is updated, on whatever page it is', async () => {
  const comments = [{ id: 1, body: 'first' }, { id: 2, body: 'second' }, { id: 3, body: 'third' },
    { id: 4, body: `${icount.MARKER}\nold report` }, { id: 5, body: 'after' }];
  const github = fakeGitHub({ comments });
  await icount.run({ github, context: event('pull_request'), core: fakeCore(), dir });
  const update = github.calls.find((c) => c.name === 'updateComment');
  assert.deepStrictEqual(update.params, { owner: 'acme', repo: 'widget', comment_id: 4, body: `${icount.MARKER}\n${report}` });
  assert.ok(!github.calls.some((c) => c.name === 'createComment'));
  assert.strictEqual(github.calls.filter((c) => c.name === 'listComments').length, 3);
});

test('workflow_run: the fork\'s pull request is found by its head, from the event', async () => {
  const pulls = [
    { number: 7, head: { sha: '9999999999999999999999999999999999999999' } },
    { number: 8, head: { sha: '3333333333333333333333333333333333333333' } },
  ];
  const github = fakeGitHub({ pulls });
  await icount.run({ github, context: event('workflow_run'), core: fakeCore(), dir });
  const list = github.calls.find((c) => c.name === 'pulls.list');
  assert.deepStrictEqual(list.params, { owner: 'acme', repo: 'widget', state: 'open', head: 'forker:main', per_page: 100, page: 1 });
  const create = github.calls.find((c) => c.name === 'createComment');
  assert.strictEqual(create.params.issue_number, 8);
});

test('workflow_run: a pull request whose head moved on gets no comment', async () => {
  const github = fakeGitHub({ pulls: [{ number: 8, head: { sha: '4444444444444444444444444444444444444444' } }] });
  const core = fakeCore();
  await icount.run({ github, context: event('workflow_run'), core, dir });
  assert.ok(!github.calls.some((c) => c.name.endsWith('Comment')), JSON.stringify(github.calls));
  assert.match(core.said[0], /^notice: icount: no open pull request has this run's head commit/);
});

test('a read-only token warns and does not fail', async () => {
  const github = fakeGitHub({ fail: { createComment: 403 } });
  const core = fakeCore();
  await icount.run({ github, context: event('pull_request'), core, dir });
  assert.match(core.said[0], /^warning: icount: this token may not comment .*two-workflow pattern/);
});

test('another API error fails the step', async () => {
  const github = fakeGitHub({ fail: { listComments: 500 } });
  await assert.rejects(icount.run({ github, context: event('pull_request'), core: fakeCore(), dir }), /HTTP 500/);
});

test('a run without a report comments its exit status', () => {
  assert.strictEqual(icount.body(path.join(testdata, 'report-failed')),
    `${icount.MARKER}\n❌ **icount**: icount ab exited 126 without a report (a build or a benchmark failed): see the job's log.\n`);
});

test('a body longer than a comment may be is cut under the limit', () => {
  const big = fs.mkdtempSync(path.join(os.tmpdir(), 'icount-comment-'));
  fs.writeFileSync(path.join(big, 'report.md'), '| `f` | +1 |\n'.repeat(20000));
  const b = icount.body(big);
  assert.ok([...b].length <= icount.MAX_COMMENT, `${[...b].length} characters`);
  assert.match(b, /cut: the full report is in the artifact\)\n$/);
  fs.rmSync(big, { recursive: true });
});
