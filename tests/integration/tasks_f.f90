! Explicit tasks from Fortran (gfortran -fopenmp, omp_lib): task and taskwait, a recursive
! function made of tasks, taskgroup, depend (a chain of inout, in after out, out after in), detach
! with omp_fulfill_event (the dependent task waits for the event; in a team of one too), and
! taskloop (every iteration once, the task sizes of grainsize, num_tasks, a negative step,
! integer(8) bounds). The C program tasks.c covers the rest; this one checks that gfortran's
! calls, which differ in places (the event handle's kind, array dependences), reach the same code.
program tasks_f
  use omp_lib
  implicit none
  interface
    subroutine lite_check_fortran() bind(C, name="lite_check_fortran")
    end subroutine lite_check_fortran
  end interface

  integer, parameter :: ntasks = 3000, nwrites = 40, nreaders = 5, n = 1000
  integer :: i, k, r, rep, team, x, bad, tasks
  integer :: runs(ntasks), reads(nwrites), tlen(n), hits(n), first
  integer(8) :: isum, i8
  integer :: fulfilled, seen, after_wait, done

  call lite_check_fortran()
  if (omp_in_final()) call fail('omp_in_final true outside any task')

  ! Many tasks from one thread, each once; complete at the single's barrier.
  isum = 0
  runs = 0
  !$omp parallel shared(isum, runs)
  !$omp single
  do i = 1, ntasks
    !$omp task firstprivate(i) shared(isum, runs)
    !$omp atomic
    isum = isum + i
    !$omp atomic
    runs(i) = runs(i) + 1
    !$omp end task
  end do
  !$omp end single
  !$omp end parallel
  if (isum /= int(ntasks, 8) * (ntasks + 1) / 2) call fail('tasks from a single: wrong sum')
  if (any(runs /= 1)) call fail('a task from a single did not run exactly once')

  ! A recursive function of tasks and taskwait.
  i8 = -1
  !$omp parallel shared(i8)
  !$omp single
  i8 = fib(18)
  !$omp end single
  !$omp end parallel
  if (i8 /= 2584) call fail('fib(18) with tasks and taskwait is wrong')

  ! taskgroup waits for the tasks its tasks make.
  done = 0
  !$omp parallel shared(done)
  !$omp single
  !$omp taskgroup
  do k = 1, 20
    !$omp task shared(done)
    !$omp task shared(done)
    !$omp atomic
    done = done + 1
    !$omp end task
    !$omp atomic
    done = done + 1
    !$omp end task
  end do
  !$omp end taskgroup
  !$omp atomic read
  r = done
  if (r /= 40) call fail('taskgroup ended before the tasks of its tasks were done')
  !$omp end single
  !$omp end parallel

  ! depend: a chain of inout in order; readers see the out before them; an out waits for them.
  do rep = 1, 5
    x = 0
    bad = 0
    reads = 0
    !$omp parallel shared(x, bad, reads)
    !$omp single
    do k = 1, nwrites
      !$omp task depend(inout: x) firstprivate(k) shared(x, bad)
      if (x /= k - 1) then
        !$omp atomic
        bad = bad + 1
      end if
      x = k
      !$omp end task
    end do
    do k = 1, nwrites
      !$omp task depend(out: x) firstprivate(k) shared(x, bad, reads)
      if (k > 1) then
        if (reads(k - 1) /= nreaders) then
          !$omp atomic
          bad = bad + 1
        end if
      end if
      x = 1000 + k
      !$omp end task
      do r = 1, nreaders
        !$omp task depend(in: x) firstprivate(k) shared(x, bad, reads)
        if (x /= 1000 + k) then
          !$omp atomic
          bad = bad + 1
        end if
        !$omp atomic
        reads(k) = reads(k) + 1
        !$omp end task
      end do
    end do
    !$omp taskwait
    !$omp end single
    !$omp end parallel
    if (bad /= 0) call fail('depend: tasks ran out of the order their clauses give')
    if (x /= 1000 + nwrites) call fail('depend: the last write is not the last out task''s')
  end do

  ! detach: the task after a detached one waits for omp_fulfill_event, which a task made later
  ! calls; in a team of one its thread must not block on the event.
  do rep = 1, 20
    team = 1
    if (mod(rep, 2) == 0) team = max(2, omp_get_max_threads())
    x = 0
    fulfilled = 0
    seen = -1
    after_wait = -1
    call detach_once(team)
    if (seen /= 5) call fail('detach: the dependent task ran before the event was fulfilled')
    if (after_wait /= 1) call fail('detach: taskwait returned before the event was fulfilled')
  end do

  ! taskloop over n = 1000 iterations (grainsize(7): 142 tasks, grainsize(10): 100): every
  ! iteration once, in tasks of consecutive iterations; `first`, firstprivate, keeps the first
  ! iteration of its task, and tlen(first) counts the task's iterations.
  !$omp parallel shared(tlen, hits, tasks)
  !$omp single
  tlen = 0
  hits = 0
  first = -1
  !$omp taskloop grainsize(7) firstprivate(first) shared(tlen, hits)
  do i = 1, n
    if (first < 0) first = i
    !$omp atomic
    tlen(first) = tlen(first) + 1
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end taskloop
  tasks = check_split('taskloop grainsize(7)', 7, 13)
  if (tasks /= 142) call fail('taskloop grainsize(7): wrong number of tasks')

  tlen = 0
  hits = 0
  !$omp taskloop num_tasks(9) firstprivate(first) shared(tlen, hits)
  do i = 1, n
    if (first < 0) first = i
    !$omp atomic
    tlen(first) = tlen(first) + 1
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end taskloop
  if (check_split('taskloop num_tasks(9)', 1, n) /= 9) &
    call fail('taskloop num_tasks(9): not 9 tasks')

  ! A negative step over integer(8) bounds: n, n - 1, ..., 1, as iterations 1 .. n.
  tlen = 0
  hits = 0
  !$omp taskloop grainsize(10) firstprivate(first) private(k) shared(tlen, hits)
  do i8 = int(n, 8) + 3000000000_8, 3000000001_8, -1
    k = int(int(n, 8) + 3000000001_8 - i8)
    if (first < 0) first = k
    !$omp atomic
    tlen(first) = tlen(first) + 1
    !$omp atomic
    hits(k) = hits(k) + 1
  end do
  !$omp end taskloop
  if (check_split('taskloop integer(8) step -1 grainsize(10)', 10, 19) /= 100) &
    call fail('taskloop integer(8) step -1 grainsize(10): wrong number of tasks')

  ! nogroup, then taskwait.
  hits = 0
  !$omp taskloop nogroup grainsize(50) shared(hits)
  do i = 1, n
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end taskloop
  !$omp taskwait
  if (any(hits /= 1)) call fail('taskloop nogroup then taskwait: not every iteration once')
  !$omp end single
  !$omp end parallel

  print '(a, i0, a)', 'tasks_f: OK (', omp_get_max_threads(), ' threads)'

contains

  recursive function fib(m) result(f)
    integer, intent(in) :: m
    integer(8) :: f, a, b
    if (m < 2) then
      f = m
      return
    end if
    !$omp task shared(a) firstprivate(m)
    a = fib(m - 1)
    !$omp end task
    !$omp task shared(b) firstprivate(m)
    b = fib(m - 2)
    !$omp end task
    !$omp taskwait
    f = a + b
  end function fib

  ! T detached, D after it through x, F fulfills T's event: D must see T's write and F's flag.
  subroutine detach_once(nthreads)
    integer, intent(in) :: nthreads
    integer(kind=omp_event_handle_kind) :: ev
    !$omp parallel num_threads(nthreads) shared(x, fulfilled, seen, after_wait) private(ev)
    !$omp single
    !$omp task detach(ev) depend(out: x) shared(x)
    x = 5
    !$omp end task
    !$omp task depend(in: x) shared(x, fulfilled, seen)
    !$omp atomic read
    seen = fulfilled
    if (seen == 1) seen = x
    !$omp end task
    !$omp task firstprivate(ev) shared(fulfilled)
    !$omp atomic write
    fulfilled = 1
    call omp_fulfill_event(ev)
    !$omp end task
    !$omp taskwait
    !$omp atomic read
    after_wait = fulfilled
    !$omp end single
    !$omp end parallel
  end subroutine detach_once

  ! Each of the n iterations ran once, in tasks of consecutive iterations of lo .. hi each (the
  ! last at least 1). Returns the number of tasks.
  integer function check_split(what, lo, hi)
    character(len=*), intent(in) :: what
    integer, intent(in) :: lo, hi
    integer :: j, m
    if (any(hits /= 1)) call fail(what // ': not every iteration once')
    check_split = 0
    j = 1
    do while (j <= n)
      m = tlen(j)
      if (m < 1) call fail(what // ': the tasks are not ranges of consecutive iterations')
      if (j + m - 1 < n .and. (m < lo .or. m > hi)) call fail(what // ': a task of wrong size')
      if (j + m - 1 >= n .and. m > hi) call fail(what // ': the last task is too large')
      if (any(tlen(j + 1:min(j + m - 1, n)) /= 0)) &
        call fail(what // ': two tasks share iterations')
      j = j + m
      check_split = check_split + 1
    end do
  end function check_split

  subroutine fail(message)
    character(len=*), intent(in) :: message
    write (0, '(a, a)') 'tasks_f: FAIL: ', message
    error stop 1
  end subroutine fail

end program tasks_f
