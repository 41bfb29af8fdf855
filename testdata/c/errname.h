/* ename names an errno as <errno.h> does ("0" for none, "errno N" for
 * one it does not list), and err the errno of a failed system call (r < 0,
 * "ok" otherwise), for the test programs that print what each call
 * returned: the same words natively and under icount, on glibc and musl
 * alike. */
#ifndef ERRNAME_H
#define ERRNAME_H
#include <errno.h>
#include <stdio.h>

static inline const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case ENOEXEC: return "ENOEXEC";
	case EBADF: return "EBADF";
	case ECHILD: return "ECHILD";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case ENOTBLK: return "ENOTBLK";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ENFILE: return "ENFILE";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case ETXTBSY: return "ETXTBSY";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ESPIPE: return "ESPIPE";
	case EROFS: return "EROFS";
	case EMLINK: return "EMLINK";
	case EPIPE: return "EPIPE";
	case EDOM: return "EDOM";
	case ERANGE: return "ERANGE";
	case EDEADLK: return "EDEADLK";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOLCK: return "ENOLCK";
	case ENOSYS: return "ENOSYS";
	case ENOTEMPTY: return "ENOTEMPTY";
	case ELOOP: return "ELOOP";
	case ENOMSG: return "ENOMSG";
	case EIDRM: return "EIDRM";
	case ENODATA: return "ENODATA";
	case ETIME: return "ETIME";
	case EOVERFLOW: return "EOVERFLOW";
	case EILSEQ: return "EILSEQ";
	case ENOTSOCK: return "ENOTSOCK";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EADDRINUSE: return "EADDRINUSE";
	case ENOTCONN: return "ENOTCONN";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	case EMSGSIZE: return "EMSGSIZE";
	case EISCONN: return "EISCONN";
	case ECONNRESET: return "ECONNRESET";
	case EPROTOTYPE: return "EPROTOTYPE";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ESTALE: return "ESTALE";
	case EDQUOT: return "EDQUOT";
	case ECANCELED: return "ECANCELED";
	case ENOKEY: return "ENOKEY";
	case EKEYEXPIRED: return "EKEYEXPIRED";
	case EKEYREVOKED: return "EKEYREVOKED";
	case EKEYREJECTED: return "EKEYREJECTED";
	}
	static char buf[32];
	snprintf(buf, sizeof buf, "errno %d", e);
	return buf;
}

static inline const char *err(long r) { return r >= 0 ? "ok" : ename(errno); }
#endif
