// The pull-request comment of the icount action (action.yml, and
// action/comment for the second half of the two-workflow pattern): one
// comment per pull request, known by a hidden marker on its first line,
// created the first time and updated after. It runs in
// actions/github-script, which gives it github (an authenticated Octokit),
// context (the event) and core.
'use strict';

const fs = require('fs');
const path = require('path');

// MARKER starts the icount comment's body.
const MARKER = '<!-- icount -->';

// MAX_COMMENT is GitHub's limit on a comment's characters.
const MAX_COMMENT = 65536;

// body is the comment for the report directory dir: icount's report.md,
// or, when the run wrote none, a line with ab's exit status. A body
// longer than a comment may be (icount keeps report.md well under it) is
// cut, saying so.
function body(dir) {
  const read = (name) => {
    try {
      return fs.readFileSync(path.join(dir, name), 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return null;
      throw e;
    }
  };
  let text = read('report.md');
  if (text === null) {
    const status = (read('status') || '').trim() || 'unknown';
    text = `❌ **icount**: icount ab exited ${status} without a report (a build or a benchmark failed): see the job's log.\n`;
  }
  const room = MAX_COMMENT - MARKER.length - 200;
  if ([...text].length > room) {
    text = [...text].slice(0, room).join('') + '\n\n… (cut: the full report is in the artifact)\n';
  }
  return `${MARKER}\n${text}`;
}

// pullRequest is the number of the pull request the run is about, 0 for
// none: the event's own, or for a workflow_run (the second half of the
// two-workflow pattern), the open pull request whose head is the commit
// the first half ran on. workflow_run.pull_requests leaves out pull
// requests from forks, so the pull request is found by its head
// repository and branch, from the event (never from the artifact, which
// the fork's code wrote), and its head commit checked.
async function pullRequest({ github, context }) {
  const p = context.payload;
  if (p.pull_request) return p.pull_request.number;
  const run = p.workflow_run;
  if (!run || !run.head_repository) return 0;
  const { owner, repo } = context.repo;
  const pulls = await github.paginate(github.rest.pulls.list, {
    owner, repo, state: 'open', head: `${run.head_repository.owner.login}:${run.head_branch}`, per_page: 100,
  });
  const pr = pulls.find((pr) => pr.head.sha === run.head_sha);
  return pr ? pr.number : 0;
}

// upsert puts text as the icount comment of pull request number: it
// updates the comment starting with MARKER, or creates one. It returns
// what it did and the comment's id.
async function upsert({ github, context, number, text }) {
  const { owner, repo } = context.repo;
  const comments = await github.paginate(github.rest.issues.listComments, {
    owner, repo, issue_number: number, per_page: 100,
  });
  const mine = comments.find((c) => (c.body || '').startsWith(MARKER));
  if (mine) {
    await github.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body: text });
    return { action: 'updated', id: mine.id };
  }
  const { data } = await github.rest.issues.createComment({ owner, repo, issue_number: number, body: text });
  return { action: 'created', id: data.id };
}

// run is the action's step: the report of dir as the comment of the run's
// pull request. A token that may not comment (a pull request from a fork
// gets a read-only one) gives a warning, not a failure.
async function run({ github, context, core, dir }) {
  const number = await pullRequest({ github, context });
  if (!number) {
    core.notice('icount: no open pull request has this run\'s head commit: no comment');
    return;
  }
  try {
    const r = await upsert({ github, context, number, text: body(dir) });
    core.info(`icount: ${r.action} comment ${r.id} on pull request #${number}`);
  } catch (e) {
    if (e.status === 403) {
      core.warning('icount: this token may not comment on the pull request (one from a fork gets a read-only token): ' +
        'use the two-workflow pattern of docs/ci.md; the report is in the artifact and the job summary');
      return;
    }
    throw e;
  }
}

module.exports = { MARKER, MAX_COMMENT, body, pullRequest, upsert, run };
