! Fortran on the runtime (gfortran -fopenmp, omp_lib): thread numbers, omp_get_wtime and
! omp_get_wtick, simple and nestable locks under contention, a parallel region and a parallel do
! with reductions, critical, omp_set_num_threads, and the affinity format routines (strings with
! their hidden lengths: blank padding, truncation, trailing blanks kept as libgomp keeps them).
program fortran_test
  use omp_lib
  implicit none
  interface
    subroutine lite_check_fortran() bind(C, name="lite_check_fortran")
    end subroutine lite_check_fortran
  end interface

  integer, parameter :: maxt = 256
  integer :: runs(0:maxt-1), sizes(0:maxt-1)
  integer :: nt, size, k, i, rep, depth, wrong
  integer(kind=omp_lock_kind) :: lock
  integer(kind=omp_nest_lock_kind) :: nlock
  integer(8) :: isum, count, ncount, n8, crit
  double precision :: t0, t1, dsum, tick
  integer :: imax

  call lite_check_fortran()
  nt = omp_get_max_threads()
  if (nt < 1 .or. nt > maxt) call fail('omp_get_max_threads out of range')
  if (omp_in_parallel()) call fail('omp_in_parallel true outside any region')
  if (omp_get_num_threads() /= 1 .or. omp_get_thread_num() /= 0) &
    call fail('not a team of one outside any region')

  ! Thread numbers: every thread once, all see the same team size.
  do rep = 1, 50
    runs = 0
    sizes = -1
    size = 0
    !$omp parallel shared(runs, sizes, size) private(k)
    k = omp_get_thread_num()
    !$omp atomic
    runs(k) = runs(k) + 1
    sizes(k) = omp_get_num_threads()
    !$omp master
    size = omp_get_num_threads()
    !$omp end master
    !$omp end parallel
    if (size /= nt) call fail('default team has the wrong size')
    do k = 0, size - 1
      if (runs(k) /= 1) call fail('a thread did not run exactly once')
      if (sizes(k) /= size) call fail('a thread saw the wrong omp_get_num_threads')
    end do
    if (sum(runs) /= size) call fail('extra threads ran')
  end do

  ! omp_set_num_threads from Fortran.
  call omp_set_num_threads(3)
  if (omp_get_max_threads() /= 3) call fail('omp_set_num_threads(3) did not stick')
  size = 0
  !$omp parallel shared(size)
  !$omp master
  size = omp_get_num_threads()
  !$omp end master
  !$omp end parallel
  if (size /= 3) call fail('omp_set_num_threads(3): wrong team size')
  call omp_set_num_threads(nt)

  ! omp_get_wtime: positive, non-decreasing, and it advances; omp_get_wtick is a sane resolution.
  t0 = omp_get_wtime()
  tick = omp_get_wtick()
  if (tick <= 0.0d0 .or. tick >= 1.0d0) call fail('omp_get_wtick out of range')
  t1 = t0
  do i = 1, 100000000
    t1 = omp_get_wtime()
    if (t1 < t0) call fail('omp_get_wtime went backwards')
    if (t1 > t0) exit
  end do
  if (t1 <= t0) call fail('omp_get_wtime does not advance')

  ! Simple lock under contention, by set and by test.
  call omp_init_lock(lock)
  count = 0
  !$omp parallel shared(count, lock) private(i)
  do i = 1, 5000
    if (mod(i, 2) == 0) then
      call omp_set_lock(lock)
    else
      do while (.not. omp_test_lock(lock))
      end do
    end if
    count = count + 1
    call omp_unset_lock(lock)
  end do
  !$omp end parallel
  call omp_destroy_lock(lock)
  if (count /= 5000_8 * nt) call fail('simple lock: wrong count')

  ! Nestable lock, taken three deep; omp_test_nest_lock returns the depth.
  call omp_init_nest_lock(nlock)
  ncount = 0
  wrong = 0
  !$omp parallel shared(ncount, nlock) private(i, depth) reduction(+:wrong)
  do i = 1, 3000
    call omp_set_nest_lock(nlock)
    call omp_set_nest_lock(nlock)
    depth = omp_test_nest_lock(nlock)
    if (depth /= 3) wrong = wrong + 1
    ncount = ncount + 1
    call omp_unset_nest_lock(nlock)
    call omp_unset_nest_lock(nlock)
    call omp_unset_nest_lock(nlock)
  end do
  !$omp end parallel
  call omp_destroy_nest_lock(nlock)
  if (ncount /= 3000_8 * nt) call fail('nestable lock: wrong count')
  if (wrong /= 0) call fail('omp_test_nest_lock by the owner returned the wrong depth')

  ! Reductions: a parallel region and a parallel do.
  do rep = 1, 200
    isum = 0
    imax = -1
    dsum = 0.0d0
    !$omp parallel reduction(+:isum, dsum) reduction(max:imax)
    isum = isum + omp_get_thread_num() + 1
    dsum = dsum + 0.5d0
    imax = max(imax, omp_get_thread_num())
    !$omp end parallel
    n8 = nt
    if (isum /= n8 * (n8 + 1) / 2) call fail('parallel reduction(+) is wrong')
    if (dsum /= 0.5d0 * nt) call fail('parallel reduction(+) on double precision is wrong')
    if (imax /= nt - 1) call fail('parallel reduction(max) is wrong')
  end do
  isum = 0
  !$omp parallel do reduction(+:isum) schedule(static)
  do i = 1, 100000
    isum = isum + i
  end do
  !$omp end parallel do
  if (isum /= 5000050000_8) call fail('parallel do reduction is wrong')

  ! critical
  crit = 0
  !$omp parallel shared(crit) private(i)
  do i = 1, 2000
    !$omp critical (fcount)
    crit = crit + 1
    !$omp end critical (fcount)
  end do
  !$omp end parallel
  if (crit /= 2000_8 * nt) call fail('critical: wrong count')

  call check_affinity_format()

  print '(a, i0, a)', 'fortran_test: OK (', nt, ' threads)'

contains

  subroutine check_affinity_format()
    character(len=64) :: buf, want
    character(len=3) :: short
    character(len=6) :: blanks
    character(len=2) :: tiny
    integer :: n, bad
    n = omp_get_affinity_format(buf)
    if (n /= 30 .or. buf /= 'level %L thread %i affinity %A') &
      call fail('omp_get_affinity_format: not the default format')
    if (buf(31:) /= ' ') call fail('omp_get_affinity_format: not padded with blanks')
    call omp_set_affinity_format('%n|%L')
    n = omp_get_affinity_format(buf)
    if (n /= 5 .or. buf /= '%n|%L') call fail('omp_set/get_affinity_format: no round trip')
    n = omp_get_affinity_format(short)
    if (n /= 5 .or. short /= '%n|') call fail('omp_get_affinity_format: wrong truncation')
    n = omp_capture_affinity(buf, '')
    if (n /= 3 .or. buf /= '0|0') call fail('omp_capture_affinity with an empty format')
    n = omp_capture_affinity(buf, '%0.3n!%.3L!%3N!%%!%{nesting_level}')
    if (n /= 15 .or. buf /= '000!  0!1  !%!0') call fail('omp_capture_affinity: wrong fields')
    ! A CHARACTER(6) format keeps its trailing blanks: '%n' and four blanks.
    blanks = '%n'
    n = omp_capture_affinity(buf, blanks)
    if (n /= 5 .or. buf /= '0') call fail('omp_capture_affinity: trailing blanks not kept')
    n = omp_capture_affinity(tiny, 'abcdef')
    if (n /= 6 .or. tiny /= 'ab') call fail('omp_capture_affinity: wrong truncation')
    call omp_set_affinity_format('T%n/%N')
    bad = 0
    !$omp parallel private(buf, want, n) reduction(+:bad)
    n = omp_capture_affinity(buf, '')
    write (want, '(a, i0, a, i0)') 'T', omp_get_thread_num(), '/', omp_get_num_threads()
    if (buf /= want .or. n /= len_trim(want)) bad = bad + 1
    !$omp end parallel
    if (bad /= 0) call fail('omp_capture_affinity in a team: wrong line')
    call omp_display_affinity('')
    call omp_display_affinity('fortran_test: omp_display_affinity %n of %N')
    call omp_set_affinity_format('level %L thread %i affinity %A')
  end subroutine check_affinity_format

  subroutine fail(message)
    character(len=*), intent(in) :: message
    write (0, '(a, a)') 'fortran_test: FAIL: ', message
    error stop 1
  end subroutine fail

end program fortran_test
