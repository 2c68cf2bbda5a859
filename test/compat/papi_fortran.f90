! PAPI's Fortran high-level calls through libpmu-papi: a region (its name
! with trailing blanks, which are not part of it), a read inside it, the stop.
program papi_fortran
  implicit none
  integer :: check
  character(len=32) :: name = "fortran region"
  call PAPIf_hl_region_begin(name, check)
  if (check /= 0) stop 1
  call PAPIf_hl_read("fortran region", check)
  if (check /= 0) stop 2
  call PAPIf_hl_region_end(name, check)
  if (check /= 0) stop 3
  call PAPIf_hl_stop(check)
  if (check /= 0) stop 4
  print '(a)', 'ok'
end program papi_fortran
