/* The files OMPLITE_PROFILE and OMPLITE_TRACE name, opened and closed for report.c and trace.c.

   The name comes from the environment and the file is written at exit, often by a program that
   runs as root, often in a directory everyone may write to (/tmp). A plain fopen(name, "w") there
   let another user choose what root overwrote (issue 37): a symbolic link planted under the name
   sent the table into the link's target, and a file planted under it was written into. So:
   - A symbolic link is never followed (O_NOFOLLOW), whoever owns it and wherever it is: telling
     a link of one's own from one planted by someone else takes the owner of the link and of its
     directory and the directory's mode, which is the kernel's fs.protected_symlinks rule, and
     that rule is off on some machines. A user who wants the file elsewhere names the target.
   - An existing regular file is written only if the effective user owns it and it has no other
     name: a hard link planted in /tmp to one of root's files (fs.protected_hardlinks off) is
     owned by root, and only its link count gives it away.
   - It is opened without O_TRUNC and emptied only after these checks: a refused file is left as
     it was.
   - A character device (/dev/null, /dev/full) is written as it is: only root makes device nodes,
     so none can be planted. A FIFO (anyone can make one, and opening it would wait for a reader
     at exit), a socket or a directory is refused.
   - A new file gets mode 0644 (less under the umask), not stdio's 0666: the table names the
     program's functions, which is no secret, but no one else may change it. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file name as the warnings show it: a name of thousands of bytes would push the rest of
   the line (the reason, where the table goes instead) out of lite_warn's 1,024. */
#define SHOWN_NAME 160
#define SHOWN(name) SHOWN_NAME, (name), strlen(name) > SHOWN_NAME ? "..." : ""

#define NOT_REGULAR "it is not a regular file (nor a character device such as /dev/null)"

/* Opens name for writing from its start; returns the descriptor, or -1 with the reason in why. */
static int open_checked(const char *name, char *why, size_t len)
{
  /* O_NONBLOCK: a FIFO with no reader would otherwise hold the open (and the exit) forever;
     it is refused below anyway, and the flag is cleared for the files kept. */
  int fd = open(name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st;
  if (fd < 0) {
    /* The errno for a link varies: ELOOP, or EACCES where the kernel's rules for sticky
       folders see the link first. */
    int err = errno;
    bool seen = lstat(name, &st) == 0;
    if (seen && S_ISLNK(st.st_mode))
      snprintf(why, len, "it is a symbolic link, which is never followed");
    else if (seen && S_ISFIFO(st.st_mode)) /* ENXIO: no reader */
      snprintf(why, len, "%s", NOT_REGULAR);
    else
      snprintf(why, len, "cannot open it: %s", strerror(err));
    return -1;
  }
  const char *no = NULL;
  int flags;
  if (fstat(fd, &st) != 0) {
    snprintf(why, len, "cannot stat it: %s", strerror(errno));
    no = why;
  } else if (S_ISCHR(st.st_mode)) {
    /* written as it is */
  } else if (!S_ISREG(st.st_mode)) {
    no = NOT_REGULAR;
  } else if (st.st_uid != geteuid()) {
    snprintf(why, len, "it belongs to another user (uid %u)", (unsigned)st.st_uid);
    no = why;
  } else if (st.st_nlink != 1) {
    no = "it has other hard links";
  } else if (ftruncate(fd, 0) != 0) {
    snprintf(why, len, "cannot empty it: %s", strerror(errno));
    no = why;
  }
  if (no == NULL && ((flags = fcntl(fd, F_GETFL)) == -1 ||
                     fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)) {
    snprintf(why, len, "cannot clear O_NONBLOCK: %s", strerror(errno));
    no = why;
  }
  if (no == NULL)
    return fd;
  if (no != why)
    snprintf(why, len, "%s", no);
  close(fd);
  return -1;
}

bool lite_prof_file_open(struct lite_prof_file *file, const char *var, const char *path,
                         const char *otherwise)
{
  file->f = NULL;
  file->var = var;
  const char *name = lite_prof_file_name(path, file->name, sizeof file->name);
  if (name == NULL) {
    /* Cut to fit, the name could be another file's (it was, before issue 37). */
    lite_warn("%s: not writing '%.*s%s': the name is too long (more than %zu bytes with its %%p "
              "and .PID expanded), and is not cut to fit%s",
              var, SHOWN(path), sizeof file->name - 1, otherwise);
    return false;
  }
  char why[160];
  int fd = open_checked(name, why, sizeof why);
  if (fd >= 0 && (file->f = fdopen(fd, "w")) == NULL) {
    snprintf(why, sizeof why, "%s", strerror(errno));
    close(fd);
  }
  if (file->f == NULL) {
    lite_warn("%s: not writing '%.*s%s': %s%s", var, SHOWN(name), why, otherwise);
    return false;
  }
  return true;
}

bool lite_prof_file_close(struct lite_prof_file *file)
{
  /* stdio keeps a stream's first write error (ferror): the writers need not check each fprintf.
     The last flush's errno is the reason (ENOSPC, EFBIG, EIO), since a failing file goes on
     failing; the close reports what only it learns (a network file system's quota). */
  int err = 0;
  if (fflush(file->f) != 0)
    err = errno;
  bool failed = err != 0 || ferror(file->f);
  if (fclose(file->f) != 0 && !failed) {
    failed = true;
    err = errno;
  }
  file->f = NULL;
  if (failed)
    lite_warn("%s: error writing '%.*s%s': %s; the file is incomplete", file->var,
              SHOWN(file->name), err != 0 ? strerror(err) : "a write failed");
  return !failed;
}
