! Worksharing from Fortran (gfortran -fopenmp, omp_lib): do loops under dynamic, guided,
! monotonic:dynamic and runtime schedules (every iteration exactly once, also counting down by a
! step), a do reduction, lastprivate, an ordered do whose ordered regions must run in iteration
! order (with iterations that skip them), sections with lastprivate (each section once, more
! sections than threads and fewer), nowait loops back to back, and a combined parallel do.
!
! Entry points (gfortran 12, objdump): GOMP_loop_nonmonotonic_{dynamic,guided}_start/_next,
! GOMP_loop_dynamic_start/_next (monotonic), GOMP_loop_maybe_nonmonotonic_runtime_*,
! GOMP_loop_ordered_dynamic_start/_next, GOMP_ordered_start/_end, GOMP_sections_start/_next/_end,
! GOMP_parallel_loop_nonmonotonic_dynamic (parallel do with constant bounds), GOMP_loop_end
! and GOMP_loop_end_nowait.
program ws_fortran
  use omp_lib
  implicit none
  interface
    subroutine ws_check_fortran() bind(C, name="ws_check_fortran")
    end subroutine ws_check_fortran
  end interface

  integer, parameter :: n = 2000
  integer :: hits(n), seq(n), nseq, shits(12)
  integer :: i, k, rep, nt, lastval, last_i, dummy
  integer(8) :: isum, want
  double precision :: dmax

  call ws_check_fortran()
  nt = omp_get_max_threads()

  do rep = 1, 20
    ! schedule(dynamic): each iteration once; a reduction and lastprivate on the way.
    hits = 0
    isum = 0
    lastval = -1
    !$omp parallel shared(hits)
    !$omp do schedule(dynamic) reduction(+:isum) lastprivate(lastval)
    do i = 1, n
      !$omp atomic update
      hits(i) = hits(i) + 1
      isum = isum + i
      lastval = 3 * i
    end do
    !$omp end do
    !$omp end parallel
    call expect_once('do schedule(dynamic)')
    if (isum /= int(n, 8) * (n + 1) / 2) call fail('do schedule(dynamic): reduction is wrong')
    if (lastval /= 3 * n) call fail('do schedule(dynamic): lastprivate is wrong')

    ! Counting down by 3 under schedule(guided, 2); monotonic:dynamic; runtime.
    hits = 0
    !$omp parallel shared(hits)
    !$omp do schedule(guided, 2)
    do i = n, 1, -3
      !$omp atomic update
      hits(i) = hits(i) + 1
    end do
    !$omp end do
    !$omp do schedule(monotonic: dynamic, 5)
    do i = 1, n
      !$omp atomic update
      hits(i) = hits(i) + 1
    end do
    !$omp end do
    !$omp do schedule(runtime)
    do i = 1, n
      !$omp atomic update
      hits(i) = hits(i) + 1
    end do
    !$omp end do
    !$omp end parallel
    do i = 1, n
      k = 2
      if (mod(n - i, 3) == 0) k = 3
      if (hits(i) /= k) call fail('do schedule(guided / monotonic:dynamic / runtime): an ' // &
                                  'iteration ran the wrong number of times')
    end do

    ! Ten nowait loops back to back: more than the runtime's ring of worksharing entries.
    hits = 0
    !$omp parallel shared(hits) private(k)
    do k = 1, 10
      !$omp do schedule(dynamic, 3)
      do i = 1, n
        !$omp atomic update
        hits(i) = hits(i) + 1
      end do
      !$omp end do nowait
    end do
    !$omp end parallel
    if (any(hits /= 10)) call fail('ten nowait do loops: an iteration ran the wrong number of times')

    ! ordered: the ordered regions in iteration order; every fourth iteration skips it.
    nseq = 0
    seq = 0
    hits = 0
    !$omp parallel shared(seq, nseq, hits)
    !$omp do ordered schedule(dynamic, 2)
    do i = 1, n
      !$omp atomic update
      hits(i) = hits(i) + 1
      if (mod(i, 4) /= 0) then
        !$omp ordered
        nseq = nseq + 1
        seq(nseq) = i
        !$omp end ordered
      end if
    end do
    !$omp end do
    !$omp end parallel
    call expect_once('do ordered')
    if (nseq /= n - n / 4) call fail('do ordered: wrong number of ordered regions')
    do k = 2, nseq
      if (seq(k) <= seq(k - 1)) call fail('do ordered: ordered regions out of iteration order')
    end do

    ! sections: twelve (more than most teams here) with lastprivate, then three.
    shits = 0
    last_i = -1
    !$omp parallel shared(shits) private(dummy)
    !$omp sections lastprivate(last_i)
    !$omp section
    call section_hit(1, last_i)
    !$omp section
    call section_hit(2, last_i)
    !$omp section
    call section_hit(3, last_i)
    !$omp section
    call section_hit(4, last_i)
    !$omp section
    call section_hit(5, last_i)
    !$omp section
    call section_hit(6, last_i)
    !$omp section
    call section_hit(7, last_i)
    !$omp section
    call section_hit(8, last_i)
    !$omp section
    call section_hit(9, last_i)
    !$omp section
    call section_hit(10, last_i)
    !$omp section
    call section_hit(11, last_i)
    !$omp section
    call section_hit(12, last_i)
    !$omp end sections
    !$omp sections
    !$omp section
    call section_hit(1, dummy)
    !$omp section
    call section_hit(2, dummy)
    !$omp section
    call section_hit(3, dummy)
    !$omp end sections nowait
    !$omp end parallel
    do k = 1, 12
      want = 1
      if (k <= 3) want = 2
      if (shits(k) /= want) call fail('sections: a section ran the wrong number of times')
    end do
    if (last_i /= 12) call fail('sections lastprivate: not the last section''s value')

    ! Combined parallel do, constant bounds (GOMP_parallel_loop_nonmonotonic_dynamic).
    hits = 0
    !$omp parallel do schedule(dynamic) shared(hits)
    do i = 1, n
      !$omp atomic update
      hits(i) = hits(i) + 1
    end do
    !$omp end parallel do
    call expect_once('parallel do schedule(dynamic)')

    ! A max reduction over a guided loop.
    dmax = -1.0d0
    !$omp parallel do schedule(guided) reduction(max:dmax)
    do i = 1, n
      dmax = max(dmax, dble(mod(i * 37, 1009)))
    end do
    !$omp end parallel do
    if (dmax /= 1008.0d0) call fail('parallel do schedule(guided) reduction(max) is wrong')
  end do

  print '(a, i0, a)', 'ws_fortran: PASS (', nt, ' threads)'

contains

  subroutine expect_once(what)
    character(len=*), intent(in) :: what
    if (any(hits /= 1)) call fail(what // ': an iteration did not run exactly once')
  end subroutine expect_once

  subroutine section_hit(s, last)
    integer, intent(in) :: s
    integer, intent(out) :: last
    !$omp atomic update
    shits(s) = shits(s) + 1
    last = s
  end subroutine section_hit

  subroutine fail(message)
    character(len=*), intent(in) :: message
    write (0, '(a, a)') 'ws_fortran: FAIL: ', message
    stop 1
  end subroutine fail

end program ws_fortran
