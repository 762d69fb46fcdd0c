// Package exportjob is the domain of asynchronous export jobs, split from
// the domain root (issue 54): a job, its owner and format, its states and
// every state change (claim, heartbeat, done, failed, expired,
// cancelled), the query of a user's jobs, the Store a backend implements
// and the Notifier that tells the owner. The export service that runs
// jobs is the top-level package export.
package exportjob
