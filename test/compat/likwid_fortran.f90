! LIKWID's Fortran marker interface (use likwid) through libpmu-likwid:
! a region with a blank-padded name, GET's events and calls, RESET, SWITCH.
! Run with PMU_EVENTS=task-clock,page-faults: prints "events 2 calls 3"
! and "after reset calls 0".
program likwid_fortran
    use likwid
    integer :: n, c, g
    double precision, dimension(4) :: ev
    double precision :: tm
    call likwid_markerInit()
    call likwid_markerThreadInit()
    call likwid_markerRegisterRegion("fortran region")
    do g = 1, 3
        call likwid_markerStartRegion("fortran region")
        call likwid_markerStopRegion("fortran region   ")
    end do
    n = 4
    call likwid_markerGetRegion("fortran region", n, ev, tm, c)
    print '(a,i0,a,i0)', "events ", n, " calls ", c
    call likwid_markerResetRegion("fortran region")
    n = 4
    call likwid_markerGetRegion("fortran region", n, ev, tm, c)
    print '(a,i0)', "after reset calls ", c
    call likwid_markerNextGroup()
    call likwid_markerClose()
end program
