// Package report turns Profiles into what people read and what tools load:
// the summary icount prints on stderr and the JSON Profile. Every format is
// a pure function of Profiles.
package report
