/* timers.c: SIGALRM from setitimer and alarm. A loop that spins until the
   alarm's handler sets a flag ends (under icount, after a fixed number of
   instructions: guest time passes as the program runs); pause returns
   EINTR once the alarm's handler ran; a sleep the alarm interrupts returns
   the time left; an interval timer fires again and again; getitimer reads
   a disarmed timer as zero. Only what is the same natively is printed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;

static void on_alarm(int sig) {
	(void)sig;
	alarms++;
}

static void arm(long first_us, long every_us) {
	struct itimerval it = {{every_us / 1000000, every_us % 1000000}, {first_us / 1000000, first_us % 1000000}};
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(void) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);

	arm(20000, 0);
	unsigned long spins = 0;
	while (!alarms) spins++;
	printf("spin ended by SIGALRM after some spins: %d\n", spins > 0);

	alarms = 0;
	alarm(1);
	int r = pause();
	printf("pause: %d %s, alarms %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?", (int)alarms);

	alarms = 0;
	alarm(1);
	unsigned left = sleep(5);
	/* About 4 s: natively a little less (3), in fixed guest time exactly 4. */
	printf("sleep(5) cut by alarm(1): 3 or 4 s left %d, alarms %d\n", left == 3 || left == 4, (int)alarms);

	alarms = 0;
	arm(5000, 5000);
	while (alarms < 3) pause();
	arm(0, 0);
	struct itimerval now;
	getitimer(ITIMER_REAL, &now);
	printf("interval timer fired %d times; disarmed: %ld %ld\n", (int)alarms, (long)now.it_value.tv_sec, (long)now.it_value.tv_usec);

	printf("alarm(0) after alarm(7): %u\n", (alarm(7), alarm(0)));
	return 0;
}
