! The error directive from Fortran (gfortran -fopenmp): as error_directive.c, but gfortran passes
! the message with its length, not as a NUL-terminated string. The message here is a substring of
! a longer variable, so a runtime that reads up to a NUL instead prints the rest of it too.
! The same lines on stderr as the C program (run-routes.sh checks them).
!
! usage: error_directive_f warning   two warnings (the second from inside a parallel region, by one
!                                    thread), then exit 0
!        error_directive_f fatal     a fatal error with message("stop here"): never returns
program error_directive_f
  implicit none
  interface
    subroutine lite_check_fortran() bind(C, name="lite_check_fortran")
    end subroutine lite_check_fortran
  end interface
  character(len=64) :: mode, buf
  integer :: warned

  call lite_check_fortran()
  call get_command_argument(1, mode)
  buf = 'hello from libomp-lite test, and not this part'
  select case (trim(mode))
  case ('warning')
    !$omp error at(execution) severity(warning) message(buf(1:27))
    warned = 0
    !$omp parallel num_threads(2) shared(warned)
    !$omp single
    !$omp error at(execution) severity(warning)
    warned = 1
    !$omp end single
    !$omp end parallel
    if (warned /= 1) then
      write (0, '(a)') 'error_directive_f: FAIL: the code after a warning in a region did not run'
      error stop 1
    end if
    print '(a)', 'error_directive_f: OK (went on after two warnings)'
  case ('fatal')
    flush (6)
    !$omp error at(execution) severity(fatal) message("stop here")
    ! Not status 1: that is the one a correct fatal error exits with.
    write (0, '(a)') 'error_directive_f: FAIL: the program went on after a fatal error directive'
    error stop 3
  case default
    write (0, '(a)') 'error_directive_f: FAIL: usage: error_directive_f warning|fatal'
    error stop 1
  end select
end program error_directive_f
