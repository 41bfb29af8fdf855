/* sigsend.c: signals sent with raise, kill and pthread_kill (tgkill),
 * handled in the thread they were sent to: to itself, to a thread waiting
 * on a semaphore, from a thread to the main thread waiting in a join; a
 * signal blocked, then unblocked; one ignored by default. With the
 * argument "die" it raises SIGTERM with no handler, which ends it. The
 * output is the same natively and under icount, on x86-64 and arm64. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, usr2, last_code, pid_ok, in_target;
static pthread_t target;
static sem_t sem;

static void handler(int sig, siginfo_t *si, void *uc) {
	(void)uc;
	if (sig == SIGUSR1)
		usr1++;
	else
		usr2++;
	last_code = si->si_code;
	pid_ok = si->si_pid == getpid() && si->si_uid == getuid();
	in_target = pthread_equal(pthread_self(), target);
	sem_post(&sem);
}

static const char *code_name(int code) {
	switch (code) {
	case SI_USER:
		return "SI_USER";
	case SI_TKILL:
		return "SI_TKILL";
	}
	return "other";
}

static void *waiter(void *arg) {
	(void)arg;
	while (sem_wait(&sem) != 0)
		if (errno != EINTR)
			return "sem_wait failed";
	return NULL;
}

static void *sender(void *arg) {
	pthread_kill(*(pthread_t *)arg, SIGUSR2);
	return NULL;
}

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "die") == 0) {
		printf("raising SIGTERM\n");
		fflush(stdout);
		raise(SIGTERM);
		printf("still alive\n");
		return 0;
	}
	sem_init(&sem, 0, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	target = pthread_self();

	raise(SIGUSR1);
	printf("raise: SIGUSR1 handled %d time(s), si_code %s, si_pid and si_uid ours: %d, in this thread: %d\n", usr1,
	       code_name(last_code), pid_ok, in_target);
	kill(getpid(), SIGUSR2);
	printf("kill: SIGUSR2 handled %d time(s), si_code %s, si_pid and si_uid ours: %d\n", usr2, code_name(last_code),
	       pid_ok);

	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGUSR1);
	printf("blocked: SIGUSR1 handled %d time(s)\n", usr1);
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("unblocked: SIGUSR1 handled %d time(s)\n", usr1);
	while (sem_trywait(&sem) == 0)
		;

	/* To a thread waiting on the semaphore: the handler posts it. */
	pthread_t a;
	pthread_create(&a, NULL, waiter, NULL);
	target = a;
	pthread_kill(a, SIGUSR1);
	void *res;
	pthread_join(a, &res);
	printf("pthread_kill to a waiting thread: SIGUSR1 handled %d time(s), in that thread: %d, si_code %s, it went on: %s\n",
	       usr1, in_target, code_name(last_code), res == NULL ? "yes" : (char *)res);

	/* From a thread to the main thread, which waits to join it. */
	pthread_t me = pthread_self(), b;
	target = me;
	pthread_create(&b, NULL, sender, &me);
	pthread_join(b, NULL);
	printf("pthread_kill from a thread to main: SIGUSR2 handled %d time(s), in main: %d\n", usr2, in_target);

	raise(SIGURG); /* ignored by default */
	printf("SIGURG with no handler: ignored\n");
	return 0;
}
