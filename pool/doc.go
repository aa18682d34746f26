// Package pool is a fixed pool of workers whose results come out in input
// order: the eval command runs its traces on it, and the watch command its
// traces' assertions.
package pool
