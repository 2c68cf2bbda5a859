! SPDX-License-Identifier: MIT
! An MPI job in Fortran (mpif.h, or use mpi with -DUSE_MPI): its only region is
! zero-code mode's whole run, which libpmu-mpi's mpi_finalize merges.
program mpi_fortran
#ifdef USE_MPI
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: ierr, rank, nranks
  double precision :: x, s

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  x = rank
  call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(I0,A,F0.1)', nranks, ' ranks, sum ', s
  call MPI_Finalize(ierr)
end program mpi_fortran
